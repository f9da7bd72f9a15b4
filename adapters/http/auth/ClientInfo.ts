import * as Option from "effect/Option"
import type * as IssueSession from "../../../application/auth/IssueSession.js"
import { type HttpRequest, header } from "../HttpMessage.js"

/** What a session records of its client: the user agent and the client's address. */
export const of = (request: Pick<HttpRequest, "headers" | "clientIp">): IssueSession.Client => ({
  userAgent: Option.fromNullable(header(request, "user-agent")).pipe(
    Option.map((agent) => agent.slice(0, 512))
  ),
  ip: request.clientIp === "unknown" ? Option.none() : Option.some(request.clientIp)
})
