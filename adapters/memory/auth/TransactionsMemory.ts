import * as Layer from "effect/Layer"
import { Transactions } from "../../../application/auth/ports/Transactions.js"

/** Runs the effect as it is: the memory adapters' writes are single steps, never rolled back. */
export const layer = Layer.succeed(Transactions, { run: (effect) => effect })
