Feature: Session options are sent on create and resume, exactly as the application set them
  An application configures a session when it creates or resumes it. Each option must be inside
  the session.create / session.resume request itself (not only in a later request), under its
  camelCase key, with the value the application gave: an explicit false stays false and an empty
  list stays an empty list. A handler the application registers is announced by its flag. An SDK
  version without an option is unsupported for it.

  Scenario Outline: <option> set to <value> is sent in session.create as <key>
    When a session is created with the option "<option>" set to <value>
    Then the "session.create" request carries "<key>" exactly as <wire>

    Examples: values
      | option                         | value                                                                                                               | key                            | wire                                                                                                                |
      | model                          | "gpt-5"                                                                                                             | model                          | "gpt-5"                                                                                                             |
      | reasoningEffort                | "high"                                                                                                              | reasoningEffort                | "high"                                                                                                              |
      | systemMessage                  | {"mode": "append", "content": "Answer briefly."}                                                                    | systemMessage                  | {"mode": "append", "content": "Answer briefly."}                                                                    |
      | systemMessage                  | {"mode": "replace", "content": "You are a test."}                                                                   | systemMessage                  | {"mode": "replace", "content": "You are a test."}                                                                   |
      | availableTools                 | ["grep", "view"]                                                                                                    | availableTools                 | ["grep", "view"]                                                                                                    |
      | excludedTools                  | ["shell"]                                                                                                           | excludedTools                  | ["shell"]                                                                                                           |
      | streaming                      | true                                                                                                                | streaming                      | true                                                                                                                |
      | workingDirectory               | "/work/project"                                                                                                     | workingDirectory               | "/work/project"                                                                                                     |
      | customAgents                   | [{"name": "reviewer", "displayName": "Reviewer", "description": "Reviews diffs", "tools": ["grep"], "prompt": "Review.", "infer": true}] | customAgents | [{"name": "reviewer", "displayName": "Reviewer", "description": "Reviews diffs", "tools": ["grep"], "prompt": "Review.", "infer": true}] |
      | mcpServers                     | {"files": {"type": "stdio", "command": "mcp-files", "args": ["--ro"], "tools": ["*"]}}                              | mcpServers                     | {"files": {"type": "stdio", "command": "mcp-files", "args": ["--ro"], "tools": ["*"]}}                              |
      | mcpServers                     | {"web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "tools": ["fetch"]}}                                      | mcpServers                     | {"web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "tools": ["fetch"]}}                                      |
      | configDiscovery                | true                                                                                                                | enableConfigDiscovery          | true                                                                                                                |
      | skillDirectories               | ["/work/skills"]                                                                                                    | skillDirectories               | ["/work/skills"]                                                                                                    |
      | infiniteSessions               | {"enabled": true, "backgroundCompactionThreshold": 0.7, "bufferExhaustionThreshold": 0.9}                          | infiniteSessions               | {"enabled": true, "backgroundCompactionThreshold": 0.7, "bufferExhaustionThreshold": 0.9}                          |
      | provider                       | {"type": "openai", "baseUrl": "http://127.0.0.1:1/v1", "apiKey": "sk-test", "wireApi": "responses"}                 | provider                       | {"type": "openai", "baseUrl": "http://127.0.0.1:1/v1", "apiKey": "sk-test", "wireApi": "responses"}                 |
      | userInputHandler               | true                                                                                                                | requestUserInput               | true                                                                                                                |
      | elicitationHandler             | true                                                                                                                | requestElicitation             | true                                                                                                                |
      | hooks                          | true                                                                                                                | hooks                          | true                                                                                                                |

    Examples: explicit false and empty lists are kept
      | option                         | value | key                            | wire  |
      | streaming                      | false | streaming                      | false |
      | includeSubAgentStreamingEvents | false | includeSubAgentStreamingEvents | false |
      | configDiscovery                | false | enableConfigDiscovery          | false |
      | availableTools                 | []    | availableTools                 | []    |
      | excludedTools                  | []    | excludedTools                  | []    |
      | skillDirectories               | []    | skillDirectories               | []    |
      | disabledSkills                 | []    | disabledSkills                 | []    |
      | infiniteSessions               | {"enabled": false} | infiniteSessions  | {"enabled": false} |

  @requires.session.resume
  Scenario Outline: <option> set to <value> is sent in session.resume as <key>
    When the session is resumed with the option "<option>" set to <value>
    Then the "session.resume" request carries "<key>" exactly as <wire>

    Examples: values
      | option             | value                                                                                  | key                   | wire                                                                                   |
      | model              | "gpt-5"                                                                                | model                 | "gpt-5"                                                                                |
      | reasoningEffort    | "high"                                                                                 | reasoningEffort       | "high"                                                                                 |
      | systemMessage      | {"mode": "append", "content": "Answer briefly."}                                       | systemMessage         | {"mode": "append", "content": "Answer briefly."}                                       |
      | availableTools     | ["grep", "view"]                                                                       | availableTools        | ["grep", "view"]                                                                       |
      | excludedTools      | ["shell"]                                                                              | excludedTools         | ["shell"]                                                                              |
      | streaming          | true                                                                                   | streaming             | true                                                                                   |
      | workingDirectory   | "/work/project"                                                                        | workingDirectory      | "/work/project"                                                                        |
      | customAgents       | [{"name": "reviewer", "prompt": "Review.", "infer": false}]                            | customAgents          | [{"name": "reviewer", "prompt": "Review.", "infer": false}]                            |
      | mcpServers         | {"files": {"type": "stdio", "command": "mcp-files", "args": ["--ro"], "tools": ["*"]}} | mcpServers            | {"files": {"type": "stdio", "command": "mcp-files", "args": ["--ro"], "tools": ["*"]}} |
      | configDiscovery    | true                                                                                   | enableConfigDiscovery | true                                                                                   |
      | infiniteSessions   | {"enabled": false}                                                                     | infiniteSessions      | {"enabled": false}                                                                     |
      | provider           | {"type": "openai", "baseUrl": "http://127.0.0.1:1/v1", "apiKey": "sk-test"}            | provider              | {"type": "openai", "baseUrl": "http://127.0.0.1:1/v1", "apiKey": "sk-test"}            |
      | userInputHandler   | true                                                                                   | requestUserInput      | true                                                                                   |
      | elicitationHandler | true                                                                                   | requestElicitation    | true                                                                                   |
      | hooks              | true                                                                                   | hooks                 | true                                                                                   |
      | continuePendingWork | true                                                                                  | continuePendingWork   | true                                                                                   |
      | suppressResumeEvent | true                                                                                  | disableResume         | true                                                                                   |

    Examples: explicit false and empty lists are kept
      | option                         | value | key                            | wire  |
      | streaming                      | false | streaming                      | false |
      | includeSubAgentStreamingEvents | false | includeSubAgentStreamingEvents | false |
      | configDiscovery                | false | enableConfigDiscovery          | false |
      | availableTools                 | []    | availableTools                 | []    |
      | excludedTools                  | []    | excludedTools                  | []    |
      | disabledSkills                 | []    | disabledSkills                 | []    |
      | continuePendingWork            | false | continuePendingWork            | false |
      | suppressResumeEvent            | false | disableResume                  | false |

  @requires.session.resume
  Scenario Outline: create and resume send <option> the same way
    When a session is created and resumed with the option "<option>" set to <value>
    Then the "session.create" and "session.resume" requests both carry "<key>" exactly as <value>

    Examples:
      | option                         | value                                                          | key                            |
      | systemMessage                  | {"mode": "append", "content": "Answer briefly."}               | systemMessage                  |
      | availableTools                 | []                                                             | availableTools                 |
      | excludedTools                  | []                                                             | excludedTools                  |
      | customAgents                   | [{"name": "reviewer", "prompt": "Review.", "infer": false}]    | customAgents                   |
      | includeSubAgentStreamingEvents | false                                                          | includeSubAgentStreamingEvents |
      | hooks                          | true                                                           | hooks                          |

  Scenario: several options together are all in session.create
    When a session is created with the options:
      | option             | value                                   |
      | model              | "gpt-5"                                 |
      | streaming          | false                                   |
      | availableTools     | ["grep"]                                |
      | excludedTools      | []                                      |
      | userInputHandler   | true                                    |
      | elicitationHandler | true                                    |
      | hooks              | true                                    |
    Then the "session.create" request carries "model" exactly as "gpt-5"
    And the "session.create" request carries "streaming" exactly as false
    And the "session.create" request carries "availableTools" exactly as ["grep"]
    And the "session.create" request carries "excludedTools" exactly as []
    And the "session.create" request carries "requestUserInput" exactly as true
    And the "session.create" request carries "requestElicitation" exactly as true
    And the "session.create" request carries "hooks" exactly as true

  Scenario: a session without options asks for sub-agent streaming events
    The SDKs document includeSubAgentStreamingEvents as defaulting to true and send it
    explicitly when the application leaves it unset; the runtime's default is not published, so
    leaving it out changes what the application receives.
    When a session is created
    Then the "session.create" request carries "includeSubAgentStreamingEvents" exactly as true

  @requires.session.resume
  Scenario: a resumed session without options asks for sub-agent streaming events
    When the session is resumed with the tools
    Then the "session.resume" request carries "includeSubAgentStreamingEvents" exactly as true
