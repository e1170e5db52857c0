Feature: The application's hooks answer the runtime's hook invocations
  With hooks registered, the runtime invokes them with hooks.invoke requests; the SDK calls the
  application's hook with the invocation's input and answers with the hook's output
  (HookInvokeResponse in the runtime's schema: an object whose output is optional).

  @requires.rpc.handlers @requires.handler.hooks
  Scenario: a pre-tool-use hook receives the runtime's input and its output reaches the runtime
    Given the application handles "hooks.invoke" with the result {"output": {"permissionDecision": "allow", "additionalContext": "checked"}}
    And the runtime then sends the SDK the request "hooks.invoke" with {"hookType": "preToolUse", "input": {"timestamp": 1764470000000, "cwd": "/work", "toolName": "grep", "toolArgs": {"q": "x"}}}
    And the model then replies "Done."
    When a session is created
    And the prompt "Go" is sent and the SDK waits for the reply
    Then every handler received the params the runtime sent
    And the SDK answered every handled call with what the application's handler returned
    And the reply is "Done."

  Scenario: a pre-tool-use hook invocation is answered
    Given the runtime then sends the SDK the request "hooks.invoke" with {"hookType": "preToolUse", "input": {"timestamp": 1764470000000, "cwd": "/work", "toolName": "grep", "toolArgs": {"q": "x"}}}
    And the model then replies "Done."
    When a session is created with the option "hooks" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered the runtime's "hooks.invoke" request without an error
    And the reply is "Done."

  Scenario: a hook type the application did not register is answered without an error
    Given the runtime then sends the SDK the request "hooks.invoke" with {"hookType": "sessionEnd", "input": {"timestamp": 1764470000000, "cwd": "/work", "reason": "complete"}}
    And the model then replies "Done."
    When a session is created with the option "hooks" set to true
    And the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered the runtime's "hooks.invoke" request without an error
