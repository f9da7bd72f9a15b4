import type { Variable } from "../adapters/cli/CommandTree.js"

/**
 * The variables each `latchkey` command reads, as its help lists them (docs/configuration.md
 * has every variable with its default). The operator commands read only these; the services
 * read many more, of which their help names the ones a first start needs.
 */

const dataDir: Variable = {
  name: "LATCHKEY_DATA_DIR",
  meaning: "Where the embedded databases keep their files (default: .latchkey)"
}

const logLevel: Variable = { name: "LOG_LEVEL", meaning: "How much is logged (default: info)" }

/** The auth service's database, for `auth migrate` and the operator commands. */
export const authDatabase: ReadonlyArray<Variable> = [
  {
    name: "AUTHSVC_DB_DATABASE_URL, else DATABASE_URL",
    meaning:
      "The PostgreSQL database (postgres://…; Supabase Auth's GOTRUE_DB_DATABASE_URL is read too); unset: the embedded database under LATCHKEY_DATA_DIR/auth"
  },
  dataDir,
  { name: "AUTHSVC_DB_NAMESPACE", meaning: "The prefix of the auth tables' names (default: none)" },
  {
    name: "AUTHSVC_DB_MAX_POOL_SIZE, AUTHSVC_DB_CONN_MAX_IDLE_TIME, AUTHSVC_DB_DRIVER",
    meaning: "The connection pool and the driver, as the service reads them"
  },
  logLevel
]

/** The JWT settings the keys commands read. */
export const authKeys: ReadonlyArray<Variable> = [
  {
    name: "AUTHSVC_JWT_KEYS",
    meaning: "Configured keys, listed before the stored ones; they win over them"
  },
  {
    name: "AUTHSVC_JWT_VALID_METHODS",
    meaning: "The algorithms a new key may have (default: those of the keys in use)"
  },
  {
    name: "AUTHSVC_JWT_EXP",
    meaning: "The access tokens' lifetime, which a key keeps verifying after it signed"
  },
  {
    name: "AUTHSVC_JWT_SECRET, AUTHSVC_JWT_ISSUER, AUTHSVC_JWT_AUD, AUTHSVC_JWT_ADMIN_ROLES",
    meaning: "Checked as the service checks them"
  }
]

/** What the users commands read besides the database. */
export const authUsers: ReadonlyArray<Variable> = [
  {
    name: "AUTHSVC_JWT_AUD",
    meaning: "The audience of the users listed and created (default: authenticated)"
  }
]

/** What `auth users create` reads besides. */
export const authUserCreation: ReadonlyArray<Variable> = [
  {
    name: "AUTHSVC_PASSWORD_MIN_LENGTH, AUTHSVC_PASSWORD_REQUIRED_CHARACTERS",
    meaning: "The password policy the new user's password must meet"
  },
  { name: "(the variable --password-env names)", meaning: "The new user's password" }
]

/** The auth service's start: what it needs, and where the rest is. */
export const authServe: ReadonlyArray<Variable> = [
  {
    name: "AUTHSVC_SITE_URL",
    meaning: "Required: the site's URL; redirects go there, or where the allow list lets them"
  },
  { name: "AUTHSVC_API_EXTERNAL_URL", meaning: "Required: the URL clients reach the service at" },
  { name: "AUTHSVC_API_HOST", meaning: "The address to listen on (default: 0.0.0.0)" },
  {
    name: "AUTHSVC_API_PORT, else PORT",
    meaning: "The port to listen on (default: 8081)"
  },
  ...authDatabase,
  {
    name: "AUTHSVC_JWT_SECRET, AUTHSVC_JWT_KEYS",
    meaning: "HS256 verification of Supabase's API keys; configured signing keys"
  },
  { name: "AUTHSVC_SMTP_HOST, AUTHSVC_SMTP_PORT, …", meaning: "The mail server; unset: mail stays queued" },
  {
    name: "AUTHSVC_*, GOTRUE_*",
    meaning:
      "Every other setting (docs/configuration.md), read from the environment and a .env file; Supabase Auth's GOTRUE_ names are read as AUTHSVC_ ones"
  }
]

/** The oauth service's database, for `oauth migrate` and the operator commands. */
export const oauthDatabase: ReadonlyArray<Variable> = [
  {
    name: "SQL_URL",
    meaning:
      "The PostgreSQL database (postgres://…); unset: the embedded database under LATCHKEY_DATA_DIR/oauth"
  },
  dataDir,
  logLevel
]

/** What `oauth migrate` reads besides the database. */
export const oauthMigrate: ReadonlyArray<Variable> = [
  { name: "CLI_CLIENT_ID", meaning: "The id of the built-in public CLI client it seeds (default: cli)" }
]

/** What `oauth clients create` reads besides. */
export const oauthClientCreation: ReadonlyArray<Variable> = [
  { name: "(the variable --secret-env names)", meaning: "The client secret of a confidential client" }
]

/** The oauth service's start: what it needs, and where the rest is. */
export const oauthServe: ReadonlyArray<Variable> = [
  { name: "BASE_URL", meaning: "The public base URL, the issuer (default: http://localhost:8080)" },
  { name: "API_HOST", meaning: "The address to listen on (default: 0.0.0.0)" },
  { name: "PORT", meaning: "The port to listen on (default: 8080)" },
  ...oauthDatabase,
  {
    name: "OAUTH2_PROVIDER, OAUTH2_CLIENT_ID, OAUTH2_CLIENT_SECRET, OAUTH2_ISSUER_URL",
    meaning: "The upstream identity provider (default: dev, an embedded one for a loopback BASE_URL)"
  },
  {
    name: "INTROSPECTION_TOKEN",
    meaning: "The resource servers' secret for /introspect; unset: no introspection"
  },
  { name: "…", meaning: "Every other setting: docs/configuration.md" }
]

/** What `oauth login` reads. */
export const oauthLogin: ReadonlyArray<Variable> = [
  {
    name: "(the variable --introspection-secret-env names)",
    meaning: "The resource servers' secret, to introspect the new token with"
  },
  { name: "DISPLAY, WAYLAND_DISPLAY", meaning: "On Linux, whether a browser can be opened" }
]

/** Both services in one process (`latchkey serve`). */
export const serveAll: ReadonlyArray<Variable> = [
  {
    name: "AUTHSVC_*, GOTRUE_*, DATABASE_URL",
    meaning:
      "The auth service's settings, as `latchkey auth serve --help` lists them; its port is AUTHSVC_API_PORT (default: 8081)"
  },
  {
    name: "PORT, SQL_URL, BASE_URL, …",
    meaning: "The oauth service's settings, as `latchkey oauth serve --help` lists them"
  },
  dataDir,
  logLevel
]

/** `latchkey dev`: both services with development defaults. */
export const dev: ReadonlyArray<Variable> = [
  ...serveAll,
  {
    name: "AUTHSVC_API_HOST, API_HOST",
    meaning: "The addresses to listen on (default here: 127.0.0.1, this machine only)"
  },
  {
    name: "LATCHKEY_INBOX_PORT",
    meaning: "The development inbox's page, on 127.0.0.1 (default: 54324)"
  },
  {
    name: "AUTHSVC_SMTP_HOST",
    meaning: "A mail server of yours; unset: mail goes to the development inbox"
  }
]
