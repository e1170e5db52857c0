Feature: Maps in the request keep the application's key order
  A tool's parameter schema, the MCP servers and a server's environment are maps the application
  writes in an order of its choosing; the order of a schema's properties is what the model reads.
  The SDK sends them in that order, on create and on resume, on every run: the order is read from
  the recorded frame bytes, not from a decoded map. The keys are given out of alphabetical order
  so that an SDK that sorts them, or whose map type has no order, shows.

  @requires.session.option.mcpServers @requires.session.resume
  Scenario: tool parameters, MCP servers and a server's environment keep the application's key order on create and on resume
    Given the tools:
      | name | parameters                                                                                                                                                  |
      | plan | {"type": "object", "properties": {"zeta": {"type": "string"}, "alpha": {"type": "number"}, "mid": {"type": "boolean"}}, "required": ["zeta", "alpha"]} |
    When a session is created with the options:
      | option     | value                                                                                                                                                                                   |
      | mcpServers | {"zeta-files": {"type": "stdio", "command": "mcp-files", "args": [], "tools": ["*"], "env": {"ZETA": "1", "ALPHA": "2", "MID": "3"}}, "alpha-web": {"type": "http", "url": "https://example.test/mcp", "tools": ["*"]}, "mid-db": {"type": "stdio", "command": "mcp-db", "args": [], "tools": ["*"]}} |
    And the session is resumed with the options:
      | option     | value                                                                                                                                                                                   |
      | mcpServers | {"zeta-files": {"type": "stdio", "command": "mcp-files", "args": [], "tools": ["*"], "env": {"ZETA": "1", "ALPHA": "2", "MID": "3"}}, "alpha-web": {"type": "http", "url": "https://example.test/mcp", "tools": ["*"]}, "mid-db": {"type": "stdio", "command": "mcp-db", "args": [], "tools": ["*"]}} |
    Then every "session.create" request has the keys of "tools[name=plan].parameters" in the order "type", "properties", "required"
    And every "session.create" request has the keys of "tools[name=plan].parameters.properties" in the order "zeta", "alpha", "mid"
    And every "session.resume" request has the keys of "tools[name=plan].parameters.properties" in the order "zeta", "alpha", "mid"
    And every "session.create" request has the keys of "mcpServers" in the order "zeta-files", "alpha-web", "mid-db"
    And every "session.resume" request has the keys of "mcpServers" in the order "zeta-files", "alpha-web", "mid-db"
    And every "session.create" request has the keys of "mcpServers.zeta-files.env" in the order "ZETA", "ALPHA", "MID"
    And every "session.resume" request has the keys of "mcpServers.zeta-files.env" in the order "ZETA", "ALPHA", "MID"
