Feature: Every SDK reads and writes any frame a stream delivers
  JSON-RPC frames are Content-Length framed byte streams. An SDK must write bodies larger than
  64 KiB, read them, read one frame split over many reads and several frames arriving in one
  read, and keep non-ASCII text intact (Content-Length counts bytes), including an escaped
  unpaired surrogate a JavaScript runtime may write. And JSON-RPC 2.0's own edges: an error response with a
  null id, a response to an id the SDK never used, a notification of an unknown method, and an
  error of every code range with data, whose code and data the application reads from the SDK's
  error.

  Scenario: a prompt over 64 KiB reaches the runtime intact
    When a prompt of 70000 characters is sent and the SDK waits for the reply
    Then the runtime received the prompt of 70000 characters
    And the reply is "ok"

  Scenario: a reply over 64 KiB reaches the application intact
    Given the model then replies with a text of 70000 characters
    When the prompt "Write a lot" is sent and the SDK waits for the reply
    Then the reply is the text of 70000 characters

  Scenario: a tool result over 64 KiB reaches the runtime intact
    Given a tool "dump" whose handler returns a text of 70000 characters
    And the model calls the tool "dump"
    And the model then replies "Done."
    When the prompt "Dump it" is sent and the SDK waits for the reply
    Then the SDK answered the call to "dump" with the text of 70000 characters
    And the reply is "Done."

  Scenario: frames split over many reads
    Given the runtime writes each frame in pieces of 7 bytes
    And a tool "lookup" that returns "found"
    And the model calls the tool "lookup"
    And the model then replies "Dönë 日本 😀"
    When the prompt "Look it up" is sent and the SDK waits for the reply
    Then the SDK answered the call to "lookup" with the text "found"
    And the reply is "Dönë 日本 😀"

  Scenario: several frames in one read
    Given the runtime writes several frames at once
    And a tool "lookup" that returns "found"
    And the model calls the tool "lookup"
    And the model then replies "Done."
    When the prompt "Look it up" is sent and the SDK waits for the reply
    Then the SDK answered the call to "lookup" with the text "found"
    And the reply is "Done."

  Scenario: non-ASCII text both ways
    Given a tool "echo" that returns "résumé — 日本語 — 😀"
    And the model calls the tool "echo"
    And the model then replies "ça va? 👍🏽"
    When the prompt "Grüße, 世界 🌍" is sent and the SDK waits for the reply
    Then the SDK answered the call to "echo" with the text "résumé — 日本語 — 😀"
    And the reply is "ça va? 👍🏽"

  Scenario: an escaped unpaired surrogate from the runtime is read
    Given the model then replies with the JSON string "half \ud83d of a pair, and \u00e9"
    When the prompt "Say it" is sent and the SDK waits for the reply
    Then the reply is the JSON string "half \ud83d of a pair, and \u00e9"

  # JSON-RPC 2.0's own edges: frames a runtime may send that answer no call of the SDK, written
  # while the SDK has a call pending, and errors of every code range with data. The SDK keeps the
  # connection, fails no call for a frame that answers none, fails only the call an error
  # answers, and hands the application the error's message.

  Scenario: an error response with a null id fails no call and leaves the connection usable
    Given an SDK client connected to the runtime
    And a session is created
    When the runtime sends an error response with a null id before it answers the next prompt
    And the prompt "Still there?" is sent and the SDK waits for the reply
    Then the reply is "ok"

  Scenario: a response to an id the SDK never used fails no call and leaves the connection usable
    Given an SDK client connected to the runtime
    And a session is created
    When the runtime sends a response to an id the SDK never used before it answers the next prompt
    And the prompt "Still there?" is sent and the SDK waits for the reply
    Then the reply is "ok"

  Scenario: a notification of a method the SDK does not know fails no call and leaves the connection usable
    Given an SDK client connected to the runtime
    And a session is created
    When the runtime sends a notification of a method the SDK does not know before it answers the next prompt
    And the prompt "Still there?" is sent and the SDK waits for the reply
    Then the reply is "ok"

  Scenario Outline: an error of code <code> fails only the call it answers and carries its message
    Given an SDK client connected to the runtime
    And a session is created
    When the runtime answers the next prompt with the error <code> "<message>" and data {"reason":"conformance","retryable":false}
    And the application tries to send the prompt "Fail this one"
    Then the SDK raised an error mentioning "<message>"
    When the prompt "And this one?" is sent and the SDK waits for the reply
    Then the reply is "ok"

    Examples:
      | code   | message                                |
      | -32700 | parse error, as the runtime read it    |
      | -32600 | invalid request, as the runtime saw it |
      | -32601 | method not found on this runtime       |
      | -32602 | invalid params for this runtime        |
      | -32603 | internal error in the runtime          |
      | -32000 | server error, first of its range       |
      | -32099 | server error, last of its range        |
      | 1      | an application error of the runtime    |
      | -1     | a negative application error           |

  # What the application reads from the error the SDK raised: the code and data the runtime
  # answered, from the SDK's own error type (never parsed from the message). An SDK whose error
  # type an application cannot reach is unsupported here, naming the type.
  @requires.error.rpc.code
  Scenario Outline: the application reads the code <code> and the data of the error the SDK raised
    Given an SDK client connected to the runtime
    And a session is created
    When the runtime answers the next prompt with the error <code> "<message>" and data {"reason":"conformance","retryable":false,"detail":{"n":1.5,"list":[null,"é"]}}
    And the application tries to send the prompt "Fail this one"
    Then the SDK's error carried the code <code>
    And the SDK's error carried the data {"reason":"conformance","retryable":false,"detail":{"n":1.5,"list":[null,"é"]}}

    Examples:
      | code   | message                                |
      | -32700 | parse error, as the runtime read it    |
      | -32600 | invalid request, as the runtime saw it |
      | -32601 | method not found on this runtime       |
      | -32602 | invalid params for this runtime        |
      | -32603 | internal error in the runtime          |
      | -32000 | server error, first of its range       |
      | -32099 | server error, last of its range        |
      | 1      | an application error of the runtime    |
      | -1     | a negative application error           |
