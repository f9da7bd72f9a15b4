import * as Config from "effect/Config"
import type * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { SmsSender } from "../../../application/auth/ports/SmsSender.js"
import type * as GatewayConfig from "./GatewayConfig.js"
import type * as GatewayHttp from "./GatewayHttp.js"
import * as MessageBird from "./MessageBird.js"
import * as Textlocal from "./Textlocal.js"
import * as Twilio from "./Twilio.js"
import * as TwilioVerify from "./TwilioVerify.js"
import * as Vonage from "./Vonage.js"

/** The gateways `SMS_PROVIDER` may name, as Supabase Auth spells them. */
export const providers = ["twilio", "twilio_verify", "messagebird", "textlocal", "vonage"] as const

export type Provider = (typeof providers)[number]

/** The gateway `SMS_PROVIDER` chose, with its settings. */
export type Gateway =
  | { readonly provider: "twilio"; readonly settings: Twilio.TwilioSettings }
  | { readonly provider: "twilio_verify"; readonly settings: TwilioVerify.TwilioVerifySettings }
  | { readonly provider: "messagebird"; readonly settings: MessageBird.MessageBirdSettings }
  | { readonly provider: "textlocal"; readonly settings: Textlocal.TextlocalSettings }
  | { readonly provider: "vonage"; readonly settings: Vonage.VonageSettings }

/** Every gateway's variables, each gateway's as it names them. */
export const variables: ReadonlyArray<string> = [
  Twilio.variables,
  TwilioVerify.variables,
  MessageBird.variables,
  Textlocal.variables,
  Vonage.variables
].flatMap((names) => Object.values(names))

/**
 * Each gateway's settings as its variables give them. All are read, whichever `SMS_PROVIDER`
 * names, so every one of them is a variable the service knows; none can fail the start.
 */
export const config = Config.all({
  twilio: Twilio.config,
  twilio_verify: TwilioVerify.config,
  messagebird: MessageBird.config,
  textlocal: Textlocal.config,
  vonage: Vonage.config
})

export type Configured = Config.Config.Success<typeof config>

/** The gateway `provider` names with its settings, or the variables it needs that are empty. */
export const gatewayOf = (provider: Provider, configured: Configured): GatewayConfig.Reading<Gateway> => {
  switch (provider) {
    case "twilio":
      return Either.map(configured.twilio, (settings) => ({ provider, settings }))
    case "twilio_verify":
      return Either.map(configured.twilio_verify, (settings) => ({ provider, settings }))
    case "messagebird":
      return Either.map(configured.messagebird, (settings) => ({ provider, settings }))
    case "textlocal":
      return Either.map(configured.textlocal, (settings) => ({ provider, settings }))
    case "vonage":
      return Either.map(configured.vonage, (settings) => ({ provider, settings }))
  }
}

/** What every gateway's calls may reach besides public addresses (`GatewayHttp.Endpoint`). */
export type Reach = Pick<GatewayHttp.Endpoint, "allowedPrivateAddresses">

export const make = (gateway: Gateway, reach: Reach = {}): Context.Tag.Service<SmsSender> => {
  switch (gateway.provider) {
    case "twilio":
      return Twilio.make({ ...gateway.settings, ...reach })
    case "twilio_verify":
      return TwilioVerify.make({ ...gateway.settings, ...reach })
    case "messagebird":
      return MessageBird.make({ ...gateway.settings, ...reach })
    case "textlocal":
      return Textlocal.make({ ...gateway.settings, ...reach })
    case "vonage":
      return Vonage.make({ ...gateway.settings, ...reach })
  }
}

/** The `SmsSender` of the configured gateway. */
export const layer = (gateway: Gateway, reach: Reach = {}): Layer.Layer<SmsSender> =>
  Layer.succeed(SmsSender, make(gateway, reach))
