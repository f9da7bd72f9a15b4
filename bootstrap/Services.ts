import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Listen from "../adapters/http/Listen.js"
import type { Mode } from "./auth/AuthStart.js"
import * as OutboundReach from "./OutboundReach.js"
import * as OAuthConfig from "./oauth/OAuthConfig.js"

/**
 * What `latchkey dev` fills in for the oauth service when the environment leaves it unset: it
 * listens on loopback only, and its outbound calls may reach this machine's loopback, where a
 * developer runs an identity provider.
 */
export const oauthDevelopmentDefaults: ReadonlyMap<string, string> = new Map([
  ["API_HOST", "127.0.0.1"],
  [OAuthConfig.allowedPrivateAddressesVariable, OutboundReach.developmentDefault]
])

/** Under `dev`, the environment and then the development defaults; else the environment. */
const oauthConfig = (mode: Mode) =>
  mode === "dev"
    ? Effect.withConfigProvider(
        OAuthConfig.server,
        ConfigProvider.orElse(ConfigProvider.fromEnv(), () =>
          ConfigProvider.fromMap(new Map(oauthDevelopmentDefaults))
        )
      )
    : OAuthConfig.server

/**
 * The oauth service's server, loaded only when something serves: the operator commands never
 * pay for the HTTP stack. Its port is checked first, before the slow start-up work.
 */
const oauthServer = (mode: Mode) =>
  Effect.flatMap(oauthConfig(mode), (config) =>
    Effect.zipRight(
      Listen.ensureFree({ service: "oauth", host: config.host, port: config.port, variables: "PORT" }),
      Effect.map(
        Effect.promise(() => import("./oauth/OAuthServer.js")),
        (OAuthServer) =>
          OAuthServer.serve(config, {
            privateAddressesSource:
              mode === "dev" && process.env[OAuthConfig.allowedPrivateAddressesVariable] === undefined
                ? "the default of latchkey dev"
                : undefined
          })
      )
    )
  )

/**
 * The auth service's server, in the given mode (AuthStart.Mode); under `dev` with the
 * development inbox, which no other mode loads (nor its SMTP server and mail parser). Its port is
 * checked first: a port taken is told at once, not after the migrations and the embedded
 * database's start. Its configuration's modules (mail templates and their HTML-to-text
 * rendering, SMS gateways, captcha) are loaded only here: `oauth serve` idles without them.
 */
const authServer = (mode: Mode) =>
  Effect.promise(() => import("./auth/AuthStart.js")).pipe(
    Effect.flatMap((AuthStart) => AuthStart.load(mode)),
    Effect.flatMap((start) =>
      Effect.zipRight(
        Listen.ensureFree({
          service: "auth",
          host: start.config.api.host,
          port: start.config.api.port,
          variables: start.portVariables
        }),
        mode === "dev"
          ? Effect.flatMap(
              Effect.promise(() => import("./DevInbox.js")),
              (DevInbox) => DevInbox.authServer(start)
            )
          : Effect.map(
              Effect.promise(() => import("./auth/AuthServer.js")),
              (AuthServer) =>
                AuthServer.serve(start.config, {
                  warnings: start.warnings,
                  notices: start.notices,
                  portVariables: start.portVariables,
                  writtenNames: start.writtenNames
                })
            )
      )
    )
  )

/** `latchkey oauth serve`, until interrupted. */
export const serveOAuth = Effect.flatMap(oauthServer("alone"), Layer.launch)

/** `latchkey auth serve`, until interrupted. */
export const serveAuth = Effect.flatMap(authServer("alone"), Layer.launch)

/**
 * `latchkey serve` (and `latchkey dev`, what `npm start` runs): every service of this build, each
 * on its own port, in one process. Both configurations are read before either starts, so a wrong
 * value stops the process before it listens anywhere.
 */
export const serveAll = (mode: "beside" | "dev" = "beside") =>
  Effect.flatMap(Effect.all([authServer(mode), oauthServer(mode)]), ([auth, oauth]) =>
    Layer.launch(Layer.mergeAll(auth, oauth))
  )
