Feature: Nothing names a session before the runtime has opened it
  A session exists for the runtime only once its session.create or session.resume has been
  answered; the runtime answers a request naming a session it does not know with
  "Session not found: <id>" (JSON-RPC -32603), as the real runtime does. Some requests are sent
  only when the application registers a handler or sets an option, so the order is checked with
  every option and handler set. The requests that followed are recorded in the report.

  Scenario: create with every option and handler set
    Given a tool "lookup" that returns "found"
    And the model calls the tool "lookup"
    And the model then replies "Done."
    When a session is created with the options:
      | option             | value                                                                      |
      | model              | "gpt-5"                                                                    |
      | systemMessage      | {"mode": "append", "content": "Answer briefly."}                           |
      | availableTools     | ["lookup"]                                                                 |
      | streaming          | true                                                                       |
      | customAgents       | [{"name": "reviewer", "prompt": "Review.", "infer": false}]                |
      | mcpServers         | {"files": {"type": "stdio", "command": "mcp-files", "tools": ["*"]}}       |
      | infiniteSessions   | {"enabled": false}                                                         |
      | userInputHandler   | true                                                                       |
      | elicitationHandler | true                                                                       |
      | hooks              | true                                                                       |
    And the prompt "Look it up" is sent and the SDK waits for the reply
    Then no request naming the session was sent before its "session.create" was answered
    And the runtime answered no request with "Session not found"
    And the reply is "Done."

  @requires.session.resume
  Scenario: resume with every option and handler set
    Given a tool "lookup" that returns "found"
    And the model calls the tool "lookup"
    And the model then replies "Done."
    When the session is resumed with the options:
      | option              | value                                                                     |
      | model               | "gpt-5"                                                                   |
      | systemMessage       | {"mode": "append", "content": "Answer briefly."}                          |
      | availableTools      | ["lookup"]                                                                |
      | streaming           | true                                                                      |
      | customAgents        | [{"name": "reviewer", "prompt": "Review.", "infer": false}]               |
      | mcpServers          | {"files": {"type": "stdio", "command": "mcp-files", "tools": ["*"]}}      |
      | infiniteSessions    | {"enabled": false}                                                        |
      | userInputHandler    | true                                                                      |
      | elicitationHandler  | true                                                                      |
      | hooks               | true                                                                      |
      | continuePendingWork | false                                                                     |
    And the prompt "Look it up" is sent and the SDK waits for the reply
    Then no request naming the session was sent before its "session.resume" was answered
    And the runtime answered no request with "Session not found"
    And the reply is "Done."

  @requires.session.resume
  Scenario: resume without options
    When the session is resumed with the tools
    And the prompt "Hello" is sent and the SDK waits for the reply
    Then no request naming the session was sent before its "session.resume" was answered
    And the runtime answered no request with "Session not found"
