Feature: Connect and handshake options are sent on connect
  The options that belong to the connection go on the connect request the SDK opens with: the
  connection token, the integrating application's identity (clientInfo, with the runtime's
  editor/extension keys) and the GitHub telemetry opt-in. A runtime that predates connect
  answers "Unhandled method connect" and the SDK falls back to ping.

  Scenario: the connection token is sent on connect
    Given an SDK client connected to the runtime with the connect options:
      | option          | value         |
      | connectionToken | "s3cret-tok"  |
    When a session is created with no tools
    Then the "connect" request carried the token "s3cret-tok" at "token", recorded only by its fingerprint

  Scenario: the application's identity is sent on connect
    Given an SDK client connected to the runtime with the connect options:
      | option     | value                                                                                                          |
      | clientInfo | {"applicationName": "acme-ide", "applicationVersion": "2.1.0", "integrationName": "acme-copilot", "integrationVersion": "0.9"} |
    When a session is created with no tools
    Then the "connect" request carries "clientInfo" exactly as {"editorName": "acme-ide", "editorVersion": "2.1.0", "extensionName": "acme-copilot", "extensionVersion": "0.9"}

  Scenario: the GitHub telemetry opt-in is sent on connect
    Given an SDK client connected to the runtime with the connect options:
      | option          | value |
      | gitHubTelemetry | true  |
    When a session is created with no tools
    Then the "connect" request carries "enableGitHubTelemetryForwarding" exactly as true

  Scenario: without options nothing optional is sent on connect
    When a session is created with no tools
    Then the "connect" request carries "enableGitHubTelemetryForwarding" exactly as absent
    And the "connect" request carries "clientInfo" exactly as absent

  Scenario: a runtime without connect gets ping
    Given the runtime predates the connect handshake
    When a session is created with no tools
    Then the first requests are "connect", "ping", "session.create"
