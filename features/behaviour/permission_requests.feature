@requires.handler.permission
Feature: The application's permission handler answers the runtime's permission requests
  The runtime asks for permission with a permission.requested event; the SDK calls the
  application's handler and answers with session.permissions.handlePendingPermissionRequest, in
  the shape the runtime's schema defines.
  A newer runtime adds fields: the SDK must still answer, and the handler still sees the fields
  it knows.

  Scenario: a custom-tool permission request is answered with the handler's approval
    Given the runtime then asks the application for permission with {"permissionRequest": {"kind": "custom-tool", "toolName": "deploy", "toolDescription": "Deploys the app", "args": {"env": "prod"}}}
    And the model then replies "Done."
    When the prompt "Deploy" is sent and the SDK waits for the reply
    Then the SDK answered with "session.permissions.handlePendingPermissionRequest" whose "requestId" is the one of the runtime's "permission.requested" event
    And the SDK answered the permission request with "result.kind" equal to "approve-once"
    And the application's permission handler received "toolName" equal to "deploy"
    And every request the SDK sent conforms to the runtime's published schema
    And the reply is "Done."

  Scenario: a permission request with fields the SDK does not know is still answered
    Given the runtime then asks the application for permission with {"permissionRequest": {"kind": "custom-tool", "toolName": "deploy", "toolDescription": "Deploys the app", "args": {}, "skipPermission": false, "futureField": {"level": 3}}, "promptRequest": {"kind": "custom-tool", "toolName": "deploy", "toolDescription": "Deploys the app"}, "riskAssessment": {"risk": "high"}, "agentMode": "interactive"}
    And the model then replies "Done."
    When the prompt "Deploy" is sent and the SDK waits for the reply
    Then the SDK answered the permission request with "result.kind" equal to "approve-once"
    And the application's permission handler received "toolName" equal to "deploy"
    And every request the SDK sent conforms to the runtime's published schema
    And the reply is "Done."

  Scenario: a request the runtime already resolved by a hook is not answered again
    Given the runtime then asks the application for permission with {"permissionRequest": {"kind": "custom-tool", "toolName": "deploy", "toolDescription": "Deploys the app"}, "resolvedByHook": true}
    And the model then replies "Done."
    When the prompt "Deploy" is sent and the SDK waits for the reply
    Then no request "session.permissions.handlePendingPermissionRequest" was sent
    And the reply is "Done."

  Scenario: permission requests pending at once are each answered once, under their own requestId
    Given the runtime then asks the application for permission at once with [{"permissionRequest": {"kind": "custom-tool", "toolName": "deploy", "toolDescription": "Deploys the app", "args": {}}}, {"permissionRequest": {"kind": "custom-tool", "toolName": "rollback", "toolDescription": "Rolls back", "args": {}}}, {"permissionRequest": {"kind": "custom-tool", "toolName": "notify", "toolDescription": "Notifies", "args": {}}}]
    And the model then replies "Done."
    When the prompt "Deploy" is sent and the SDK waits for the reply
    Then the SDK answered each permission request once, under its own requestId, while all of them were pending
    And the reply is "Done."
