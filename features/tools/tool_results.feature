Feature: Tool results of every kind reach the runtime whole
  A tool handler returns plain text, a structured value in the language's own types, a whole
  result object (binary results for the model, a session log, tool telemetry, a failure returned
  as a value), or raises. The SDK answers session.tools.handlePendingToolCall with success or
  failure as the application meant it, drops nothing the application gave, and its answer
  conforms to the runtime's published schema for that method.
  Each answer is also compared whole: the handlePendingToolCall params (apart from the sessionId
  and requestId naming the call) must be exactly the answer the application's intent gives, the
  same for every SDK, where a bare string is the success text of a result object and a JSON
  text is read as its value (the runtime's own reading). A key more or less, or a failure
  carried in another place, is a difference named by its path.

  Scenario: plain text is a success with that text
    Given a tool "lookup" that returns "42 results"
    And the model calls the tool "lookup"
    And the model then replies "Done."
    When the prompt "Look it up" is sent and the SDK waits for the reply
    Then the SDK answered the call to "lookup" as a success
    And the SDK answered the call to "lookup" with the text "42 results"
    And the SDK answered the call to "lookup" with exactly {"result": {"textResultForLlm": "42 results", "resultType": "success"}}
    And every request the SDK sent conforms to the runtime's published schema

  Scenario: a structured value with a UUID, a date-time and an enum is a success carrying every field
    Given a tool "ticket" whose handler returns the typed value {"id": "5f0c6a1e-3b2d-4c5e-9f80-1a2b3c4d5e6f", "at": "2026-03-04T05:06:07Z", "status": "closed", "count": 3, "tags": ["a", "b"]}
    And the model calls the tool "ticket"
    And the model then replies "Done."
    When the prompt "Get the ticket" is sent and the SDK waits for the reply
    Then the SDK answered the call to "ticket" as a success
    And the SDK answered the call to "ticket" with the typed value {"id": "5f0c6a1e-3b2d-4c5e-9f80-1a2b3c4d5e6f", "at": "2026-03-04T05:06:07Z", "status": "closed", "count": 3, "tags": ["a", "b"]}
    And the SDK answered the call to "ticket" with exactly {"result": {"textResultForLlm": "{\"id\": \"5f0c6a1e-3b2d-4c5e-9f80-1a2b3c4d5e6f\", \"at\": \"2026-03-04T05:06:07Z\", \"status\": \"closed\", \"count\": 3, \"tags\": [\"a\", \"b\"]}", "resultType": "success"}}
    And every request the SDK sent conforms to the runtime's published schema

  Scenario: a result object with a session log and tool telemetry keeps every field
    Given a tool "build" whose handler returns the result object {"textResultForLlm": "built", "resultType": "success", "sessionLog": "compiled 3 files", "toolTelemetry": {"files": 3, "cached": false}}
    And the model calls the tool "build"
    And the model then replies "Done."
    When the prompt "Build it" is sent and the SDK waits for the reply
    Then the SDK answered the call to "build" as a success
    And the SDK answered the call to "build" with every field of the result object
    And the SDK answered the call to "build" with exactly {"result": {"textResultForLlm": "built", "resultType": "success", "sessionLog": "compiled 3 files", "toolTelemetry": {"files": 3, "cached": false}}}
    And every request the SDK sent conforms to the runtime's published schema

  Scenario: binary results for the model keep every field
    Given a tool "screenshot" whose handler returns the result object {"textResultForLlm": "one image", "resultType": "success", "binaryResultsForLlm": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "description": "the screen"}]}
    And the model calls the tool "screenshot"
    And the model then replies "Done."
    When the prompt "Look" is sent and the SDK waits for the reply
    Then the SDK answered the call to "screenshot" as a success
    And the SDK answered the call to "screenshot" with every field of the result object
    And the SDK answered the call to "screenshot" with exactly {"result": {"textResultForLlm": "one image", "resultType": "success", "binaryResultsForLlm": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "description": "the screen"}]}}
    And every request the SDK sent conforms to the runtime's published schema

  Scenario: a failure returned as a value is a failure with its message
    Given a tool "deploy" whose handler returns the result object {"textResultForLlm": "deploy refused", "resultType": "failure", "error": "no credentials"}
    And the model calls the tool "deploy"
    And the model then replies "Done."
    When the prompt "Deploy" is sent and the SDK waits for the reply
    Then the SDK answered the call to "deploy" as a failure
    And the SDK answered the call to "deploy" with every field of the result object
    And the SDK answered the call to "deploy" with exactly {"result": {"textResultForLlm": "deploy refused", "resultType": "failure", "error": "no credentials"}}
    And every request the SDK sent conforms to the runtime's published schema

  Scenario: a raised exception is a failure mentioning its message
    Given a tool "explode" that fails with "disk full"
    And the model calls the tool "explode"
    And the model then replies "Done."
    When the prompt "Go" is sent and the SDK waits for the reply
    Then the SDK answered the call to "explode" as a failure
    And the SDK answered the call to "explode" with a failure mentioning "disk full"
    And the SDK answered the call to "explode" with exactly {"error": "disk full"}
    And every request the SDK sent conforms to the runtime's published schema

  Scenario: binary results keep the metadata the producing tool gave
    The runtime's schema allows metadata on a binary result; an SDK whose binary result type
    cannot carry it is unsupported here.
    Given a tool "chart" whose handler returns the result object {"textResultForLlm": "a chart", "resultType": "success", "binaryResultsForLlm": [{"type": "resource", "data": "AAEC", "mimeType": "application/octet-stream", "metadata": {"rows": 2}}]}
    And the model calls the tool "chart"
    And the model then replies "Done."
    When the prompt "Chart it" is sent and the SDK waits for the reply
    Then the SDK answered the call to "chart" with every field of the result object
    And the SDK answered the call to "chart" with exactly {"result": {"textResultForLlm": "a chart", "resultType": "success", "binaryResultsForLlm": [{"type": "resource", "data": "AAEC", "mimeType": "application/octet-stream", "metadata": {"rows": 2}}]}}
    And every request the SDK sent conforms to the runtime's published schema
