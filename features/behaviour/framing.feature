Feature: Every SDK reads and writes any frame a stream delivers
  JSON-RPC frames are Content-Length framed byte streams. An SDK must write bodies larger than
  64 KiB, read them, read one frame split over many reads and several frames arriving in one
  read, and keep non-ASCII text intact (Content-Length counts bytes), including an escaped
  unpaired surrogate a JavaScript runtime may write.

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
