Feature: Every handler the SDK declares announces itself the same way, alone and together, on create and on resume
  The handlers the application can register (permission, user input, elicitation, exit plan mode,
  auto mode switch, MCP auth, event callbacks, providers …) are the SDK's own: its driver reads
  them from the SDK's declarations, so no list here can lag the SDK. Each is registered alone,
  then all of them together, on create and on resume, on top of the permission handler and event
  forwarding every session has. The keys each adds to session.create / session.resume (the
  request flags such as requestUserInput) must be the same alone and together, and the same on
  create and on resume; no request naming a session may go out before its create or resume was
  answered. Which keys each handler announces is compared across SDKs (same handler, same
  flags) in the report's field × SDK matrix and its payload differences. Registered all at once,
  each handler must then be reached when the runtime calls it: the runtime sends every
  runtime-to-SDK method and every event type of its schema, one at a time, and the driver reports
  which handler each reached (the transcript lists them).

  @requires.surface @requires.surface.handlers @requires.session.resume
  Scenario: every declared handler, alone and all together, announces the same flags on session.create and session.resume
    When every handler the SDK declares is registered alone and all together, on create and on resume
    Then each handler announces the same flags alone and together, on create and on resume, and nothing names a session before it is opened

  @requires.surface @requires.surface.handlers @requires.surface.handlers.called
  Scenario: every declared handler is reached when the runtime calls it
    When every handler the SDK declares is registered at once and the runtime sends every runtime-to-SDK method and every event type of the schema
    Then every declared handler was reached by one of them
