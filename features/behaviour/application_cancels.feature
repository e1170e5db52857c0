Feature: The application cancels a call the runtime has not answered
  An application bounds what it waits for: it cancels a call the language's way (a Go context's
  deadline, Python's asyncio.wait_for, Rust's tokio::time::timeout, Java's Future.get with a
  timeout then cancel, .NET's CancellationToken). While the runtime withholds its answer to a
  session's opening, the application cancels the SDK's create call after 200 ms: the call must
  end within 2 s with the language's cancellation error, and the same client must then open
  another session, the runtime's late answer to the cancelled one arriving meanwhile and dropped
  without harm. An SDK whose call offers no way to cancel is unsupported, naming what is missing.

  @requires.call.cancel.createSession
  Scenario: the application cancels a session's creation while the runtime withholds its answer
    Given a tool "lookup" that returns "looked up"
    And the runtime takes 3000 ms to answer each session opening
    When the application creates a session and cancels the call after 200 ms
    Then the call ended within 2000 ms with the language's cancellation error
    And a session created next on the same client is opened
