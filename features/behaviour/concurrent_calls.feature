@requires.tool.handler.waitFor
Feature: A pending request from the runtime does not hold up the session's other traffic
  The runtime may ask the application for several tools in one model message. While the
  application's handler for one of them has not answered (it waits for the other tool's handler
  to return), the SDK still serves and answers the other call on the same session. An SDK that
  serves the runtime's requests one at a time answers the waiting call first (its handler gives
  up waiting), which the order of the answers on the wire shows.

  Scenario: a tool call is answered while another call of the same session is pending
    Given a tool "slow" that returns "slow done" once the tool "fast" has returned
    And a tool "fast" that returns "fast done"
    And the model calls the tools "slow" and "fast" at once
    And the model then replies "Done."
    When the prompt "Run both" is sent and the SDK waits for the reply
    Then the SDK answered the call to "fast" while the call to "slow" was pending
    And the SDK answered the call to "slow" with the text "slow done"
    And the SDK answered the call to "fast" with the text "fast done"
    And the reply is "Done."
