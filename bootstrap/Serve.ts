import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Failure from "./Failure.js"
import * as Services from "./Services.js"

/** Runs the services until the process is told to stop (SIGINT, SIGTERM), then shuts them down. */
export const serve = (which: "all" | "oauth") =>
  NodeRuntime.runMain(Failure.report(which === "all" ? Services.serveAll : Services.serveOAuth), {
    disablePrettyLogger: true
  })
