import * as ConfigError from "effect/ConfigError"

/** One line per problem, naming the variable: `SQL_URL: expected a postgres:// URL`. */
export const lines = (error: ConfigError.ConfigError): Array<string> =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left, right) => [...left, ...right],
    orCase: (_, left, right) => [...left, ...right],
    invalidDataCase: (_, path, message) => [`${path.join("_")}: ${message}`],
    missingDataCase: (_, path, message) => [
      `${path.join("_")}: ${message.replace(/^Expected \S+ to exist.*$/, "is required but not set")}`
    ],
    sourceUnavailableCase: (_, path, message) => [`${path.join("_")}: ${message}`],
    unsupportedCase: (_, path, message) => [`${path.join("_")}: ${message}`]
  })
