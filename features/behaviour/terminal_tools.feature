Feature: Terminal tools end the turn only when they succeed
  isTerminal ends the current agent turn only when the tool succeeds. A failure stays visible to
  the model so it can recover or retry, and an ordinary tool never ends the turn. The runtime
  decides from what the SDK puts on the wire (the tool definition and the tool's result), so
  each check below reads the recorded frames.

  @requires.tool.isTerminal
  Scenario: a successful terminal tool ends the turn with no further model round
    Given a tool "finish" with isTerminal set to true
    And a tool "finish" that returns "all done"
    And the model calls the tool "finish"
    And the model then replies "should not be reached"
    When the prompt "wrap up" is sent and the SDK waits for the reply
    Then the SDK answered the call to "finish" as a success
    And the SDK answered the call to "finish" with the text "all done"
    And the turn ended right after the tool "finish"

  @requires.tool.isTerminal
  Scenario: a failed terminal tool leaves the loop running so the model sees the error
    Given a tool "finish" with isTerminal set to true
    And a tool "finish" that fails with "disk full"
    And the model calls the tool "finish"
    And the model then replies "I saw the error"
    When the prompt "wrap up" is sent and the SDK waits for the reply
    Then the tool "finish" in the "session.create" request has "isTerminal" equal to true
    And the SDK answered the call to "finish" as a failure
    And the SDK answered the call to "finish" with a failure mentioning "disk full"
    And the model went on after the tool "finish"
    And the reply is "I saw the error"

  Scenario: a non-terminal tool never ends the turn
    Given a tool "lookup" that returns "42"
    And the model calls the tool "lookup"
    And the model then replies "the answer is 42"
    When the prompt "look it up" is sent and the SDK waits for the reply
    Then the SDK answered the call to "lookup" as a success
    And the model went on after the tool "lookup"
    And the reply is "the answer is 42"

  Scenario: a failed ordinary tool is reported to the model, which goes on
    Given a tool "lookup" that fails with "not found"
    And the model calls the tool "lookup"
    And the model then replies "nothing there"
    When the prompt "look it up" is sent and the SDK waits for the reply
    Then the SDK answered the call to "lookup" as a failure
    And the SDK answered the call to "lookup" with a failure mentioning "not found"
    And the model went on after the tool "lookup"
    And the reply is "nothing there"

  @requires.tool.isTerminal
  Scenario: a terminal tool after an ordinary one ends the turn
    Given a tool "lookup" that returns "42"
    And a tool "finish" with isTerminal set to true
    And the model calls the tool "lookup"
    And the model calls the tool "finish"
    And the model then replies "should not be reached"
    When the prompt "look it up, then finish" is sent and the SDK waits for the reply
    Then the model went on after the tool "lookup"
    And the turn ended right after the tool "finish"
