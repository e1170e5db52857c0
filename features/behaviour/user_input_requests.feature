Feature: The application answers the runtime's questions through its user-input handler
  The runtime asks the application a question with a userInput.request request; the SDK calls
  the handler the application registered and answers with the handler's answer. The driver's
  handler answers the first choice, or "ok" as free text when there are no choices.

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
