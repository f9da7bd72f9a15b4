import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Failure from "./Failure.js"
import * as Services from "./Services.js"

export type Which = "all" | "dev" | "oauth" | "auth"

const programs = {
  all: () => Services.serveAll("beside"),
  dev: () => Services.serveAll("dev"),
  oauth: () => Services.serveOAuth,
  auth: () => Services.serveAuth
} as const

/** Runs the services until the process is told to stop (SIGINT, SIGTERM), then shuts them down. */
export const serve = (which: Which) =>
  NodeRuntime.runMain(Failure.report(programs[which]()), { disablePrettyLogger: true })
