Feature: The application cancels a call the runtime has not answered
  An application bounds what it waits for: it cancels a call the language's way (a Go context's
  deadline, Python's asyncio.wait_for, Rust's tokio::time::timeout, Java's Future.get with a
  timeout then cancel, .NET's CancellationToken, Node's own timeout option where the SDK has
  one). Every public SDK call that waits on the runtime is one case: a session's creation and
  resumption, a prompt's send, a send that waits for the reply, and the generated layer (one
  method of each schema group: a driver reaches every method of a group through one path).
  While the runtime withholds its answer, the application cancels the call after 200 ms: the
  call must end within 2 s with the language's cancellation error. The same call is then made
  again on the same client, and the runtime withholds its answer as long, so the late answer to
  the cancelled call arrives while the next call waits: it must be dropped without harm, and the
  next call must be answered. (Which turn's reply that send-and-wait returns is judged in the
  last scenario only, where the stand-in queues a session's turns as the real runtime does; the
  others play the two turns side by side.) An SDK whose call offers no way to cancel is
  unsupported, naming what is missing, per call.

  @requires.call.cancel.createSession
  Scenario: the application cancels a session's creation while the runtime withholds its answer
    Given a tool "lookup" that returns "looked up"
    And the runtime takes 3000 ms to answer each session opening
    When the application creates a session and cancels the call after 200 ms
    Then the call ended within 2000 ms with the language's cancellation error
    And a session created next on the same client is opened

  @requires.call.cancel.resumeSession @requires.session.resume
  Scenario: the application cancels a session's resumption while the runtime withholds its answer
    Given a tool "lookup" that returns "looked up"
    And a session is created
    And the runtime takes 3000 ms to answer each session opening
    When the application resumes the session on another client and cancels the call after 200 ms
    Then the call ended within 2000 ms with the language's cancellation error
    And the session resumed next on the same client is opened

  @requires.call.cancel.send
  Scenario: the application cancels a prompt's send while the runtime withholds its answer
    Given a session is created
    And the runtime takes 3000 ms to answer each prompt
    When the application sends a prompt and cancels the call after 200 ms
    Then the call ended within 2000 ms with the language's cancellation error
    And a prompt sent next on the same session is answered

  @requires.call.cancel.sendAndWait
  Scenario: the application stops waiting for a reply the model takes its time over
    Given a session is created
    And the model takes 3000 ms to reply to each of the next 2 prompts
    When the application sends a prompt, waits for the reply and cancels the call after 200 ms
    Then the call ended within 2000 ms with the language's cancellation error
    And a prompt sent next on the same session is answered

  @requires.call.cancel.rpc @requires.rpc.generated
  Scenario Outline: the application cancels a generated <group> method while the runtime withholds its answer
    Given a session is created
    And the runtime takes 3000 ms to answer each call of the first <group> method of its schema that the SDK's generated layer has
    When the application calls that method through the generated layer and cancels the call after 200 ms
    Then the call ended within 2000 ms with the language's cancellation error
    And that method called next on the same client is answered

    Examples:
      | group   |
      | server  |
      | session |

  # The real runtime queues a prompt sent while a turn runs (session.send's mode "enqueue", the
  # default in its schema) and starts its turn after that turn's session.idle: a send-and-wait
  # cancelled while its turn runs leaves that turn to end after the next prompt was answered.
  @requires.call.cancel.sendAndWait
  Scenario: a send-and-wait after a cancelled one returns its own turn's reply
    Given a session is created
    And the runtime plays each session's turns one at a time, each after the one before it went idle
    And the model replies "the cancelled prompt's reply" to the next prompt after 3000 ms
    And the model replies "the next prompt's reply" to the next prompt after 500 ms
    When the application sends a prompt, waits for the reply and cancels the call after 200 ms
    Then the call ended within 2000 ms with the language's cancellation error
    And a prompt sent next on the same session is answered with "the next prompt's reply", its own turn's reply
