import { createHash } from "node:crypto"
import { linkSync, lstatSync, renameSync, unlinkSync } from "node:fs"
import * as Net from "node:net"
import { basename, relative, resolve } from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/**
 * One process at a time in an embedded database's data folder. PGlite keeps no lock of its own:
 * two processes on one folder each run a PostgreSQL of their own over the same files, neither
 * sees what the other writes, and whichever writes last decides what survives a restart.
 *
 * The lock is a Unix socket the holding process listens on, `latchkey.lock` in the folder. The
 * kernel answers for it, so it is held exactly as long as its process lives: a process killed
 * outright leaves the socket file behind but nothing listening on it, and the next process takes
 * it over; a reused process id or a second container on the same volume fools nothing. A
 * process that finds the lock held connects to it, and the holder says who it is, so the refusal
 * can name it. On Windows a named pipe, which ends with its process, plays the same part.
 */

/** The lock's name in the data folder. */
export const fileName = "latchkey.lock"

/** Who holds a folder, as the holder tells it. */
export const Holder = Schema.Struct({
  pid: Schema.Number,
  /** The command it runs (`latchkey dev`), without its options. */
  command: Schema.String,
  /** When it took the lock (ISO 8601). */
  since: Schema.String
})
export type Holder = typeof Holder.Type

/** The folder is held by a live process: `holder` is none when it did not say who it is. */
export class DataDirInUse extends Schema.TaggedError<DataDirInUse>()("DataDirInUse", {
  dir: Schema.String,
  holder: Schema.OptionFromSelf(Holder)
}) {}

/** Longest socket path every platform takes (macOS: 104 bytes with the closing zero). */
const maxSocketPath = 103

/** How long a holder may take to say who it is; a live one answers at once. */
const probeTimeoutMillis = 2_000

/** Takeovers of a dead lock tried before giving up: each loses only to another process's. */
const takeovers = 3

/** The socket address of `dir`'s lock, or why there can be none. */
const addressOf = (dir: string): Either.Either<string, string> => {
  if (process.platform === "win32") {
    const digest = createHash("sha256").update(resolve(dir).toLowerCase()).digest("hex").slice(0, 32)
    return Either.right(`\\\\.\\pipe\\latchkey-${digest}`)
  }
  // The kernel takes socket paths of ~100 bytes at most, and Node cuts longer ones short without
  // a word: the shorter of the absolute path and the one relative to the working folder.
  const absolute = resolve(dir, fileName)
  const path = [absolute, relative(process.cwd(), absolute)].reduce((a, b) =>
    Buffer.byteLength(b) < Buffer.byteLength(a) ? b : a
  )
  return Buffer.byteLength(path) <= maxSocketPath
    ? Either.right(path)
    : Either.left(`its path is longer than the ${maxSocketPath} bytes a socket path may have`)
}

/** This process's command as an operator typed it: the program and its words before any option. */
const commandLine = (): string => {
  const program = basename(process.argv[1] ?? "node")
  const words = process.argv.slice(2)
  const firstOption = words.findIndex((word) => word.startsWith("-"))
  return [
    program === "cli.js" ? "latchkey" : program,
    ...(firstOption === -1 ? words : words.slice(0, firstOption))
  ].join(" ")
}

type Listened =
  | { readonly _tag: "Listening"; readonly server: Net.Server }
  | { readonly _tag: "Refused"; readonly error: NodeJS.ErrnoException }

/** Listens on `address`, answering every connection with `holder` as one JSON line. */
const listen = (address: string, holder: Holder): Promise<Listened> =>
  new Promise((done) => {
    const server = Net.createServer((socket) => {
      socket.on("error", () => {})
      socket.end(`${JSON.stringify(holder)}\n`)
    })
    let listening = false
    // Once it listens, a failed accept (too many open files) leaves the lock held: not a crash.
    server.on("error", (error: NodeJS.ErrnoException) => {
      if (!listening) done({ _tag: "Refused", error })
    })
    server.listen(address, () => {
      listening = true
      // The lock never keeps a process alive that has nothing else left to do.
      server.unref()
      done({ _tag: "Listening", server })
    })
  })

type Probed = { readonly _tag: "Live"; readonly holder: Option.Option<Holder> } | { readonly _tag: "Dead" }

const decodeHolder = Schema.decodeUnknownOption(Schema.parseJson(Holder))

/**
 * Asks whoever listens on `address` who it is. Nobody listening (the socket of a process that
 * was killed, or the file gone meanwhile): dead. Anything else — an answer, silence, a refusal
 * to let this user connect — counts as live: the lock is only taken over when it is sure to be dead.
 */
const probe = (address: string): Promise<Probed> =>
  new Promise((done) => {
    let connected = false
    let answer = ""
    const socket = Net.createConnection(address)
    const live = () => done({ _tag: "Live", holder: decodeHolder(answer.trim()) })
    const timer = setTimeout(() => {
      socket.destroy()
      live()
    }, probeTimeoutMillis)
    socket.setEncoding("utf8")
    socket.on("connect", () => {
      connected = true
    })
    socket.on("data", (chunk: string) => {
      answer += chunk
    })
    socket.on("end", () => {
      clearTimeout(timer)
      live()
    })
    socket.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      if (!connected && (error.code === "ECONNREFUSED" || error.code === "ENOENT")) done({ _tag: "Dead" })
      else live()
    })
  })

const inodeOf = (path: string): number | undefined => {
  try {
    return lstatSync(path).ino
  } catch {
    return undefined
  }
}

/**
 * Removes the dead lock at `address`, found at inode `dead`, unless another process took the lock
 * over meanwhile. Moved aside first, atomically, then checked: a live lock moved by mistake is put
 * back (a link fails, harmlessly, when yet another process holds the name by then). Returns why
 * it could not be removed, if it could not.
 */
const removeDead = (address: string, dead: number | undefined): string | undefined => {
  if (process.platform === "win32") return undefined
  const aside = `${address}.${process.pid}.dead`
  try {
    renameSync(address, aside)
  } catch (error) {
    // Gone already (another process removed it), or this process may not remove it.
    return isErrno(error) && error.code === "ENOENT" ? undefined : String(error)
  }
  if (inodeOf(aside) !== dead) {
    try {
      linkSync(aside, address)
    } catch {
      // The name is taken again: that holder stands, whoever it is.
    }
  }
  unlinkSync(aside)
  return undefined
}

const isErrno = (error: unknown): error is NodeJS.ErrnoException => error instanceof Error && "code" in error

/**
 * Takes the lock of `dir` (which must exist) for as long as the scope lasts, or fails with
 * `DataDirInUse` naming the process that holds it. Where the folder cannot hold a socket (a
 * file system without them, a path too long) the process goes on unlocked, with a warning.
 */
export const acquire = (dir: string): Effect.Effect<void, DataDirInUse, Scope.Scope> =>
  Either.match(addressOf(dir), {
    onLeft: (reason) => unlocked(dir, reason),
    onRight: (address) => {
      const holder: Holder = { pid: process.pid, command: commandLine(), since: new Date().toISOString() }
      const attempt = (left: number): Effect.Effect<Net.Server | string, DataDirInUse> =>
        Effect.flatMap(
          Effect.promise(() => listen(address, holder)),
          (listened) => {
            if (listened._tag === "Listening") return Effect.succeed(listened.server)
            if (listened.error.code !== "EADDRINUSE") return Effect.succeed(listened.error.message)
            const found = inodeOf(address)
            return Effect.flatMap(
              Effect.promise(() => probe(address)),
              (probed) =>
                probed._tag === "Live"
                  ? Effect.fail(new DataDirInUse({ dir, holder: probed.holder }))
                  : left === 0
                    ? Effect.fail(new DataDirInUse({ dir, holder: Option.none() }))
                    : Effect.flatMap(
                        Effect.sync(() => removeDead(address, found)),
                        (failed) =>
                          // A dead lock this process cannot remove holds nothing: it goes on, warned.
                          failed === undefined
                            ? attempt(left - 1)
                            : Effect.succeed(`its dead lock stays: ${failed}`)
                      )
            )
          }
        )
      return Effect.flatMap(
        Effect.acquireRelease(attempt(takeovers), (held) =>
          // Closing unlinks the socket file at once; the probes still open end by themselves.
          typeof held === "string" ? Effect.void : Effect.sync(() => held.close())
        ),
        (held) => (typeof held === "string" ? unlocked(dir, held) : Effect.void)
      )
    }
  })

const unlocked = (dir: string, reason: string) =>
  Effect.logWarning(
    `cannot lock the embedded database in ${dir} (${reason}): make sure no other process opens it while this one runs`
  )
