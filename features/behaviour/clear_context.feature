@requires.session.clearContext
Feature: Clearing the context from a tool handler
  clearContext is a tool-handler primitive: it replaces the conversation context while a tool
  call is in flight, seeded with a non-empty prompt, and the runtime rejects it otherwise. A
  successful clear emits session.context_cleared with the number of removed messages and the
  initial message, which the SDK delivers to the application.

  @requires.tool.isTerminal
  Scenario: a handler clears the context while its own tool call is in flight
    Given a tool "reset" with isTerminal set to true
    And a tool "reset" that clears the context with "start over from the summary"
    And the model calls the tool "reset"
    When the prompt "clear it" is sent and the SDK waits for the reply
    Then the "session.history.clearContext" request was sent while the call to "reset" was in flight
    And the "session.history.clearContext" request has "prompt" equal to "start over from the summary"
    And the session id the SDK reported is the "sessionId" of the "session.history.clearContext" request
    And the SDK answered the call to "reset" with the text "Cleared 2 messages."
    And the turn ended right after the tool "reset"

  @requires.events @requires.tool.isTerminal
  Scenario: the application receives session.context_cleared
    Given a tool "reset" with isTerminal set to true
    And a tool "reset" that clears the context with "fresh start"
    And the model calls the tool "reset"
    When the prompt "clear it" is sent and the SDK waits for the reply
    Then the application received the event "session.context_cleared" with "initialMessage" equal to "fresh start"
    And the application received the event "session.context_cleared" with "messagesCleared" equal to 2

  Scenario: clearContext with no tool call in flight is rejected and raised to the caller
    Given a session is created with no tools
    When the application tries to call clearContext with "too early" outside a tool call
    Then the runtime rejected the "session.history.clearContext" request
    And the SDK raised an error mentioning "tool call is in flight"

  @requires.tool.isTerminal
  Scenario: clearContext with an empty prompt fails the handler that called it
    Given a tool "reset" with isTerminal set to true
    And a tool "reset" that clears the context with ""
    And the model calls the tool "reset"
    And the model then replies "recovered"
    When the prompt "clear it" is sent and the SDK waits for the reply
    Then the "session.history.clearContext" request was sent while the call to "reset" was in flight
    And the "session.history.clearContext" request has "prompt" equal to ""
    And the runtime rejected the "session.history.clearContext" request
    And the SDK answered the call to "reset" as a failure
    And the model went on after the tool "reset"
