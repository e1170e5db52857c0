@requires.tool.isTerminal
Feature: isTerminal on a tool definition
  A tool marked terminal ends the agent's turn when it succeeds. The SDK puts the option on the
  tool definition as "isTerminal": true, in camelCase, and leaves the key out when the application
  did not set it or set it to false (the product's rule: "omitted when false"). This holds for the
  tools sent when a session is created and when it is resumed.

  Scenario Outline: a terminal tool is sent as "isTerminal": true on <request>
    Given a tool "finish" with isTerminal set to true
    When the session is <action> with the tools
    Then the tool "finish" in the "<request>" request has "isTerminal" equal to true
    And no key "is_terminal" appears anywhere in the "<request>" request

    Examples:
      | request        | action  |
      | session.create | created |

    @requires.session.resume
    Examples:
      | request        | action  |
      | session.resume | resumed |

  Scenario Outline: an unset isTerminal is absent on <request>
    Given a tool "lookup" with isTerminal unset
    When the session is <action> with the tools
    Then the tool "lookup" in the "<request>" request has no key "isTerminal"
    And no key "is_terminal" appears anywhere in the "<request>" request

    Examples:
      | request        | action  |
      | session.create | created |

    @requires.session.resume
    Examples:
      | request        | action  |
      | session.resume | resumed |

  Scenario Outline: isTerminal explicitly false is omitted on <request>
    Given a tool "lookup" with isTerminal set to false
    When the session is <action> with the tools
    Then the tool "lookup" in the "<request>" request has no key "isTerminal"
    And no key "is_terminal" appears anywhere in the "<request>" request

    Examples:
      | request        | action  |
      | session.create | created |

    @requires.session.resume
    Examples:
      | request        | action  |
      | session.resume | resumed |
