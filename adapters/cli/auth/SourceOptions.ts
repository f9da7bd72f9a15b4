import * as Options from "@effect/cli/Options"
import type * as Option from "effect/Option"

/** Where a command was told to read the auth service's variables from besides the environment. */
export interface Sources {
  /** A file of variables read in place of `.env` (`--config`); unlike `.env`, it must exist. */
  readonly file: Option.Option<string>
  /** A directory of `*.env` and `*.json` files read over the file (`--config-dir`). */
  readonly directory: Option.Option<string>
}

/**
 * The options every `latchkey auth` command reads its `Sources` from, named as Supabase Auth's
 * own flags are, so that its command line works unchanged.
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
