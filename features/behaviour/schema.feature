Feature: Requests conform to the runtime's published schema
  The runtime publishes a JSON Schema of its methods (api.schema.json). Every request an SDK
  sends whose method the schema describes must validate against it, and every tool definition
  must be a ProtocolExternalToolDefinition (additionalProperties: false), so a key the schema
  does not know, such as is_terminal, is a violation reported with its JSON pointer.

  @requires.session.resume @requires.tool.skipPermission
  Scenario: a session with plain tools conforms to the schema
    Given the tools:
      | name   | skipPermission | parameters                                                   |
      | search | true           | {"type": "object", "properties": {"q": {"type": "string"}}} |
      | plain  |                |                                                              |
    And the model calls the tool "search"
    When a session is created with the tools
    And the session is resumed with the tools
    And the prompt "go" is sent and the SDK waits for the reply
    Then every request the SDK sent conforms to the runtime's published schema

  @requires.session.resume @requires.tool.isTerminal @requires.tool.defer @requires.tool.metadata
  @requires.tool.skipPermission @requires.tool.overridesBuiltInTool
  Scenario: a session with every tool option conforms to the schema
    Given the tools:
      | name   | isTerminal | defer | skipPermission | overridesBuiltInTool | metadata         | parameters                                                   |
      | finish | true       | never | true           | true                 | {"team": "docs"} | {"type": "object", "properties": {"x": {"type": "string"}}} |
      | plain  |            |       |                |                      |                  |                                                              |
    And the model calls the tool "finish"
    When a session is created with the tools
    And the session is resumed with the tools
    And the prompt "go" is sent and the SDK waits for the reply
    Then every request the SDK sent conforms to the runtime's published schema
