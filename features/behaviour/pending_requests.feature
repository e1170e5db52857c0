@requires.rpc.handlers @requires.handler.hold
Feature: No pending request from the runtime blocks another
  The runtime asks the application for many kinds of thing on one session: every runtime-to-SDK
  method of its schema the application registered a handler for (session file system, canvases,
  tokens, hooks, …) and a call of each of its tools. An application's handler may take its time
  (it reads a large file, waits for a user); meanwhile the SDK must go on serving the session's
  other requests. For each kind in turn, the application's handler is held (it answers only once
  released), every other kind is sent on the same session and must be answered, then the held one
  is released and must be answered under its own id. A kind the SDK does not answer even with
  nothing held is named and left out (the handler sweep judges it).

  Scenario: while one kind of runtime request is held, every other kind is answered
    Given a tool "lookup" that returns "looked up"
    And the application registered a handler for every runtime-to-SDK method of the runtime's schema
    When the runtime holds each kind of request in turn and sends every other kind while it is held
    Then the SDK answered every other kind while the held one was pending
    And the SDK answered each held request under its own id once released
