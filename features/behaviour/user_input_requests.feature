Feature: The application answers the runtime's questions through its user-input handler
  The runtime asks the application a question with a userInput.request request; the SDK calls
  the handler the application registered and answers with the handler's answer. The driver's
  handler answers the first choice, or "ok" as free text when there are no choices. Several
  questions sent at once are all pending together; each answer must carry its own request's id
  (an SDK that answers them in another order than asked is fine: ids, not order, pair them).

  Scenario: a question with choices gets the handler's choice
    Given the runtime then sends the SDK the request "userInput.request" with {"question": "Proceed?", "choices": ["yes", "no"], "allowFreeform": false}
    And the model then replies "Done."
    When a session is created with the option "userInputHandler" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered the runtime's "userInput.request" request without an error
    And the SDK answered the runtime's "userInput.request" request with "result.answer" equal to "yes"
    And the SDK answered the runtime's "userInput.request" request with "result.wasFreeform" equal to false
    And the reply is "Done."

  Scenario: a free-text question gets the handler's text
    Given the runtime then sends the SDK the request "userInput.request" with {"question": "Name?", "allowFreeform": true}
    And the model then replies "Done."
    When a session is created with the option "userInputHandler" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered the runtime's "userInput.request" request with "result.answer" equal to "ok"
    And the SDK answered the runtime's "userInput.request" request with "result.wasFreeform" equal to true

  Scenario: a question with fields the SDK does not know is still answered
    Given the runtime then sends the SDK the request "userInput.request" with {"question": "Proceed?", "choices": ["yes"], "allowFreeform": false, "toolCallId": "call-7", "futureField": {"x": 1}}
    And the model then replies "Done."
    When a session is created with the option "userInputHandler" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered the runtime's "userInput.request" request with "result.answer" equal to "yes"

  Scenario: questions pending at once each get the answer to their own request id
    Given the runtime then sends the SDK the requests "userInput.request" at once with [{"question": "First?", "choices": ["first-α", "first-b"], "allowFreeform": false}, {"question": "Second?", "choices": ["second-β"], "allowFreeform": false}, {"question": "Third?", "choices": ["third-γ", "x"], "allowFreeform": false}]
    And the model then replies "Done."
    When a session is created with the option "userInputHandler" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered each of the runtime's "userInput.request" requests with "result.answer" equal to that request's "choices[0]", while all of them were pending
    And the reply is "Done."
