import * as Options from "@effect/cli/Options"

/**
 * Where `latchkey auth serve` and `migrate` read variables from besides the environment, named as
 * Supabase Auth's own flags are, so that its command line works unchanged.
 */
export const sources = {
  file: Options.text("config").pipe(
    Options.withAlias("c"),
    Options.withPseudoName("FILE"),
    Options.optional,
    Options.withDescription(
      "Read this file of variables in place of .env (it must exist); the environment wins over it"
    )
  ),
  directory: Options.text("config-dir").pipe(
    Options.withAlias("d"),
    Options.withPseudoName("DIRECTORY"),
    Options.optional,
    Options.withDescription(
      "Read the *.env and *.json files of this directory too, in name order, over the file and under the environment; read once, at start"
    )
  )
}
