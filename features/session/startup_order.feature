Feature: Nothing names a session before the runtime has opened it
  A session exists for the runtime only once its session.create or session.resume has been
  answered; the runtime answers a request naming a session it does not know with
  "Session not found: <id>" (JSON-RPC -32603), as the real runtime does. Some requests are sent
  only when the application registers a handler or sets an option, so the order is checked with
  every option and handler set. The requests that followed are recorded in the report.
  A session the client opened before hides the order (the SDK knows it already), and one option
  can hide what another sends, so every field and handler the SDK declares (its driver reads them
  from the SDK's own types, features/surface) is also set alone, each on a client of its own that
  has opened no session, on create and on resume of a session another client made, while the
  runtime holds each create and resume a moment (a request naming the session in that time is
  answered "Session not found"). The requests that client sends must be those of a client without
  options (two such baselines; a request only one of them sends is no case's) in the same order,
  plus only requests whose params carry the option: its value, or a key named like it or like a key
  it changed in the create or resume.

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

  @requires.surface @requires.session.resume
  Scenario: every declared option and handler, set alone on a client of its own, adds only its own requests and waits for the opening
    When every option and every handler the SDK declares is set alone on a client of its own, on create and on resume
    Then each adds to the baseline's requests only requests that carry it, and nothing names a session before its opening was answered
