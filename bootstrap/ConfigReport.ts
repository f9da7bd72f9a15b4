import * as ConfigError from "effect/ConfigError"

/**
 * Drops the unset half of an alternative whose other half holds a wrong value: when a variable
 * falls back to another name (`AUTHSVC_API_PORT`, else `PORT`), the one to fix is the name that
 * is set, and that an unset name was not the problem is not worth a line.
 */
const withoutUnsetAlternatives = (error: ConfigError.ConfigError): ConfigError.ConfigError => {
  switch (error._op) {
    case "And":
      return ConfigError.And(withoutUnsetAlternatives(error.left), withoutUnsetAlternatives(error.right))
    case "Or": {
      const left = withoutUnsetAlternatives(error.left)
      const right = withoutUnsetAlternatives(error.right)
      if (ConfigError.isMissingDataOnly(left) && !ConfigError.isMissingDataOnly(right)) return right
      if (ConfigError.isMissingDataOnly(right) && !ConfigError.isMissingDataOnly(left)) return left
      return ConfigError.Or(left, right)
    }
    default:
      return error
  }
}

/** One line per problem, naming the variable: `SQL_URL: expected a postgres:// URL`. */
export const lines = (error: ConfigError.ConfigError): Array<string> =>
  ConfigError.reduceWithContext(withoutUnsetAlternatives(error), undefined, {
    andCase: (_, left, right) => [...left, ...right],
    orCase: (_, left, right) => [...left, ...right],
    invalidDataCase: (_, path, message) => [`${path.join("_")}: ${message}`],
    // effect's own wording names the provider, and a redacted variable's is only `<redacted>`.
    missingDataCase: (_, path) => [`${path.join("_")}: is required but not set`],
    sourceUnavailableCase: (_, path, message) => [`${path.join("_")}: ${message}`],
    unsupportedCase: (_, path, message) => [`${path.join("_")}: ${message}`]
  })
