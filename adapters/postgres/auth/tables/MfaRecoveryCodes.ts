import { randomUUID } from "node:crypto"
import type { FactorId } from "../../../../domain/auth/Factor.js"
import type { SecretHash } from "../../../../domain/Ids.js"

/**
 * The `mfa_recovery_codes` table: one row per code of a set, its digest, and when it was used.
 * A row's id names nothing outside the table, so it is made here.
 */

/** The rows of a new set of codes for `factorId`, made at `now`. */
export const rows = (factorId: FactorId, codeHashes: ReadonlyArray<SecretHash>, now: Date) =>
  codeHashes.map((codeHash) => ({ id: randomUUID(), factorId, codeHash, createdAt: now, usedAt: null }))
