import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { reapIdleClients } from "../../../application/oauth/ReapIdleClients.js"

export const command = Command.make("reap", {}, () =>
  Effect.gen(function* () {
    const report = yield* reapIdleClients
    if (Option.isNone(report))
      return yield* Console.log("another instance is reaping right now; nothing done")
    const r = report.value
    yield* Console.log(
      `removed ${r.clients.length} idle client(s)${r.clients.length > 0 ? `: ${r.clients.join(", ")}` : ""}`
    )
    yield* Console.log(
      `purged ${r.codes} code(s), ${r.pendingLogins} pending login(s), ${r.pendingConsents} pending consent(s), ${r.sessions} session(s), ${r.accessTokens} access token(s), ${r.families} refresh-token famil${r.families === 1 ? "y" : "ies"}`
    )
  })
).pipe(Command.withDescription("Run the idle-client reaper once and print what it removed."))
