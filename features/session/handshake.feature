Feature: Connecting and a first turn
  The SDK opens the connection with connect, creates a session whose id it chooses, and a prompt
  sent with send-and-wait returns the assistant's reply once the session is idle.

  Scenario: the SDK connects before anything else and creates a session
    When a session is created with no tools
    Then the first request is "connect"
    And the session id the SDK reported is the "sessionId" of the "session.create" request

  Scenario: a prompt sent and waited for returns the assistant's reply
    When the prompt "hello" is sent and the SDK waits for the reply
    Then the "session.send" request has "prompt" equal to "hello"
    And the reply is "ok"

  @requires.transport.stdio
  Scenario: the SDK spawns the runtime as its CLI over stdio
    Given an SDK client that starts the runtime itself over stdio
    When a session is created with the tools
    Then the runtime was started with the flag "--stdio"
    And the first request is "connect"
    And the session id the SDK reported is the "sessionId" of the "session.create" request

  @requires.session.gitHubToken
  Scenario: the application's per-session GitHub token is sent on session.create, recorded only by its fingerprint
    When a session is created with the GitHub token "ghp_ConformanceFakeToken0000000000000000"
    Then the "session.create" request carried the token "ghp_ConformanceFakeToken0000000000000000" at "gitHubToken", recorded only by its fingerprint
    And the session id the SDK reported is the "sessionId" of the "session.create" request
