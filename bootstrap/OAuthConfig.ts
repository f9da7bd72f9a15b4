import { Config, type LogLevel, type Option, type Redacted } from "effect"
import * as ConfigValues from "./ConfigValues.js"

/** The oauth service's configuration, names exactly as docs/configuration.md lists them. */
export interface OAuthConfig {
  readonly sqlUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly logLevel: LogLevel.LogLevel
}

/** What `latchkey oauth migrate` needs: only the database. */
export const database: Config.Config<Pick<OAuthConfig, "sqlUrl" | "dataDir" | "logLevel">> = Config.all({
  sqlUrl: Config.option(ConfigValues.postgresUrl("SQL_URL")),
  dataDir: ConfigValues.dataDir("oauth"),
  logLevel: ConfigValues.logLevel
})
