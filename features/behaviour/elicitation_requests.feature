Feature: The application's elicitation handler answers the runtime's elicitation requests
  The runtime asks the application to fill in a form with an elicitation.requested event; the SDK
  calls the handler the application registered and answers with
  session.ui.handlePendingElicitation. The driver's handler cancels.

  Scenario: a form elicitation is answered with the handler's action
    Given the runtime then asks the application to elicit with {"message": "Pick a region", "mode": "form", "requestedSchema": {"type": "object", "properties": {"region": {"type": "string", "enum": ["eu", "us"]}}, "required": ["region"]}}
    And the model then replies "Done."
    When a session is created with the option "elicitationHandler" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered with "session.ui.handlePendingElicitation" whose "requestId" is the one of the runtime's "elicitation.requested" event
    And the SDK answered with "session.ui.handlePendingElicitation" whose "result.action" equals "cancel"
    And every request the SDK sent conforms to the runtime's published schema
    And the reply is "Done."

  Scenario: an elicitation with fields the SDK does not know is still answered
    Given the runtime then asks the application to elicit with {"message": "Pick a region", "mode": "form", "requestedSchema": {"type": "object", "properties": {"region": {"type": "string"}}}, "elicitationSource": "mcp-files", "futureField": [1, 2]}
    And the model then replies "Done."
    When a session is created with the option "elicitationHandler" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered with "session.ui.handlePendingElicitation" whose "result.action" equals "cancel"
