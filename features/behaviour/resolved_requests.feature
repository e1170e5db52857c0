@requires.handler.hold
Feature: Requests the runtime resolves, repeats, or resolves without having asked
  The runtime asks the application for things with session events carrying a requestId (a tool
  call, a permission, user input, an elicitation, …) and tells every client once a request is
  settled with the event of the same family ending in "completed" (another client answered it,
  the user answered in the terminal, the turn was aborted). The kinds come from the runtime's
  events schema: every event type NAME.completed whose data require requestId resolves the
  other event types of its family whose data require it too. Each kind is first sent once (a
  kind the SDK does not answer is named and left out). Then each answered kind is sent twice
  with one requestId: the SDK answers once and the application's handler runs once. The tool
  call is resolved while its handler is held: once released, the SDK must not answer it. Last,
  every resolving event is sent for an id the SDK never saw: nothing names it, and a tool call
  after them is still answered.

  Scenario: requests resolved while handled, repeated, and resolved unseen
    Given a tool "lookup" that returns "looked up"
    When a session is created with the options:
      | option             | value |
      | userInputHandler   | true  |
      | elicitationHandler | true  |
    And the runtime sends each kind of request event, repeats it and resolves it, and resolves requests the SDK never saw
    Then the SDK answered each request event sent twice with one requestId once, and the application's handler ran once
    And the SDK did not answer a request the runtime resolved while the application's handler ran
    And no request named a requestId the SDK never saw, and a tool call after them was answered

  # Where the SDK's tool handler API has a way to learn that its call was resolved (an
  # AbortSignal, a cancelled context or task, a dropped future, a cancelled CompletableFuture or
  # CancellationToken: capability handler.cancel.tool, read from the SDK's declared types), the
  # held handler watches it and reports when it was told.
  @requires.handler.cancel.tool
  Scenario: the application's tool handler is told when the runtime resolves its call
    Given a tool "lookup" that returns "looked up"
    When a session is created
    And the runtime resolves a tool call while the application's handler runs
    Then the SDK did not answer a request the runtime resolved while the application's handler ran
    And the application's tool handler was told within 1000 ms that the runtime resolved its call

  # The same for every other kind of request the SDK answers (derived from the events schema as
  # above, the tool call left to the scenario before): where the SDK's handler type for that
  # kind has a way to learn that the runtime resolved its request (capability
  # handler.cancel.<kind>: permission, elicitation, command, read from the SDK's declared types),
  # the handler is held and reports when it was told; a kind without one is named, and when no
  # kind has one the scenario is unsupported.
  Scenario: the application's handler of every other kind is told when the runtime resolves its request
    Given a tool "lookup" that returns "looked up"
    When a session is created with the options:
      | option             | value |
      | userInputHandler   | true  |
      | elicitationHandler | true  |
    And the runtime resolves each other kind of request while the application's handler runs
    Then the application's handler of each other kind of request was told within 1000 ms that the runtime resolved it
