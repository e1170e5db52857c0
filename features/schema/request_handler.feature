@sweep
Feature: The application's request handler serves the runtime's model requests
  An application may serve the HTTP requests the runtime would send to the model itself
  (Node's CopilotClientOptions.requestHandler, Go's ClientOptions.RequestHandler, Python's
  request_handler, Rust's ClientOptions::with_request_handler). One request is an exchange of the
  runtime's schema, not one call: the runtime announces the head (llmInference.httpRequestStart)
  and sends the body in chunks (llmInference.httpRequestChunk), the SDK acknowledges each frame,
  hands the application's handler one HTTP request, and sends the handler's response back (a
  response start with status and headers, then the body in chunks, the last marked end). The
  heads are generated from the start method's params schema (every case but the websocket
  transport, a message channel rather than one response), with the fields an HTTP library parses
  made real: an absolute URL, an HTTP method, ASCII headers, a multi-valued one among them; the
  bodies are empty, UTF-8 text split across chunks, and binary.

  @requires.rpc.requestHandler
  Scenario: every model request reaches the application's request handler and its response goes back
    Given the application serves the runtime's model requests with its request handler
    When the runtime sends model requests generated from the runtime's schema
    Then the SDK acknowledged every frame of every model request
    And the request handler received every model request as the runtime sent it
    And the SDK sent the request handler's response back for every model request
