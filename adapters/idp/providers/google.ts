import type { ProviderEntry } from "../ProviderEntry.js"
import * as Oidc from "./oidc.js"

/** Google is an OpenID provider at a fixed issuer; a configured issuer URL is ignored. */
const issuer = new URL("https://accounts.google.com")

export const entry: ProviderEntry = {
  name: "google",
  build: ({ clientId, clientSecret }) => Oidc.make("google", { clientId, clientSecret, issuerUrl: issuer })
}
