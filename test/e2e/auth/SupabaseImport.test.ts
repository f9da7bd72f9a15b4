import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { hashSync } from "@node-rs/bcrypt"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Server from "../../support/auth/AuthServerHarness.js"
import * as Supabase from "../../support/auth/SupabaseClient.js"
import * as DocBlocks from "../../support/DocBlocks.js"
import * as TestDatabase from "../../support/TestDatabase.js"

/**
 * docs/deployment.md's move from a Supabase project, run as written: a database shaped as a
 * Supabase project's (Supabase Auth's `auth.users` and `auth.identities`, every column, as its
 * migrations leave them) with a few users, the documented export and import with psql, and then
 * those users signing in through the auth service.
 */

const supabaseSchema = `
CREATE SCHEMA auth;
CREATE TABLE auth.users (
  instance_id uuid NULL,
  id uuid NOT NULL PRIMARY KEY,
  aud varchar(255) NULL,
  role varchar(255) NULL,
  email varchar(255) NULL,
  encrypted_password varchar(255) NULL,
  email_confirmed_at timestamptz NULL,
  invited_at timestamptz NULL,
  confirmation_token varchar(255) NULL,
  confirmation_sent_at timestamptz NULL,
  recovery_token varchar(255) NULL,
  recovery_sent_at timestamptz NULL,
  email_change_token_new varchar(255) NULL,
  email_change varchar(255) NULL,
  email_change_sent_at timestamptz NULL,
  last_sign_in_at timestamptz NULL,
  raw_app_meta_data jsonb NULL,
  raw_user_meta_data jsonb NULL,
  is_super_admin bool NULL,
  created_at timestamptz NULL,
  updated_at timestamptz NULL,
  phone text NULL UNIQUE DEFAULT NULL,
  phone_confirmed_at timestamptz NULL DEFAULT NULL,
  phone_change text NULL DEFAULT '',
  phone_change_token varchar(255) NULL DEFAULT '',
  phone_change_sent_at timestamptz NULL DEFAULT NULL,
  confirmed_at timestamptz GENERATED ALWAYS AS (LEAST(email_confirmed_at, phone_confirmed_at)) STORED,
  email_change_token_current varchar(255) NULL DEFAULT '',
  email_change_confirm_status smallint DEFAULT 0
    CHECK (email_change_confirm_status >= 0 AND email_change_confirm_status <= 2),
  banned_until timestamptz NULL,
  reauthentication_token varchar(255) NULL DEFAULT '',
  reauthentication_sent_at timestamptz NULL DEFAULT NULL,
  is_sso_user boolean NOT NULL DEFAULT false,
  deleted_at timestamptz NULL,
  is_anonymous boolean NOT NULL DEFAULT false
);
CREATE TABLE auth.identities (
  provider_id text NOT NULL,
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  identity_data jsonb NOT NULL,
  provider text NOT NULL,
  last_sign_in_at timestamptz NULL,
  created_at timestamptz NULL,
  updated_at timestamptz NULL,
  email text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
  id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  CONSTRAINT identities_provider_id_provider_unique UNIQUE (provider_id, provider)
);
`

const ada = "6f0b4a3e-1d2c-4b5a-9e8f-0a1b2c3d4e01"
const phoneUser = "6f0b4a3e-1d2c-4b5a-9e8f-0a1b2c3d4e02"
const grace = "6f0b4a3e-1d2c-4b5a-9e8f-0a1b2c3d4e03"
const hopper = "6f0b4a3e-1d2c-4b5a-9e8f-0a1b2c3d4e04"
const deleted = "6f0b4a3e-1d2c-4b5a-9e8f-0a1b2c3d4e05"
const adaPassword = "ada's long password"
const phonePassword = "the phone user's password"
const hopperPassword = "hopper's long password"

/** Supabase Auth's bcrypt: cost 10, `$2a$`, as Go's bcrypt writes it. */
const bcrypt = (password: string) => hashSync(password, { cost: 10, version: "2a" })

/** The rows as Supabase Auth writes them: empty strings where it keeps no token or change. */
const supabaseUsers = () => ({
  text: `
INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  confirmation_token, recovery_token, email_change_token_new, email_change, last_sign_in_at,
  raw_app_meta_data, raw_user_meta_data, is_super_admin, created_at, updated_at, phone,
  phone_confirmed_at, phone_change, confirmation_sent_at)
VALUES
  ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', 'Ada@Example.com ', $5,
   now() - interval '30 days', '', '', '', '', now() - interval '2 days',
   '{"provider":"email","providers":["email"]}', '{"full_name":"Ada Lovelace"}', NULL,
   now() - interval '30 days', now() - interval '2 days', NULL, NULL, '', NULL),
  ('00000000-0000-0000-0000-000000000000', $2, 'authenticated', 'authenticated', '', $6,
   NULL, '', '', '', '', NULL,
   '{"provider":"phone","providers":["phone"]}', '{}', NULL,
   now() - interval '20 days', now() - interval '20 days', '14155552671', now() - interval '20 days', '', NULL),
  ('00000000-0000-0000-0000-000000000000', $3, 'authenticated', 'authenticated', 'grace@example.com', '',
   now() - interval '10 days', '', '', '', '', now() - interval '1 day',
   '{"provider":"google","providers":["google"]}', '{"full_name":"Grace Hopper"}', NULL,
   now() - interval '10 days', now() - interval '1 day', NULL, NULL, '', NULL),
  ('00000000-0000-0000-0000-000000000000', $4, 'authenticated', 'authenticated', 'hopper@example.com', $7,
   NULL, 'a-confirmation-token-in-the-clear', '', '', '', NULL,
   '{"provider":"email","providers":["email"]}', '{}', NULL,
   now() - interval '1 day', now() - interval '1 day', NULL, NULL, '', now() - interval '1 day')
`,
  values: [ada, phoneUser, grace, hopper, bcrypt(adaPassword), bcrypt(phonePassword), bcrypt(hopperPassword)]
})

/**
 * A user Supabase Auth soft-deleted: digests where the address, the number and the pending
 * change were (its `obfuscateEmail`, `obfuscatePhone`), no password, the metadata emptied.
 */
const supabaseSoftDeleted = {
  text: `
INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_change, phone,
  phone_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, deleted_at)
VALUES
  ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated',
   'Q2xSZ3VvT1dWcS1hcGxYb0Z5dlZfX0lGd2dNNFBla2Y', NULL, 'V2VqdE9xY0JuRkJ5QmZyVHh1RzRQd0pBVG1CdWlQeW0',
   'aDNsT0x3cWVrcDE', 'Zk1fU2N3d0VJdnY', '{}', '{}',
   now() - interval '40 days', now() - interval '5 days', now() - interval '5 days')
`,
  values: [deleted]
}

const supabaseIdentities = {
  text: `
INSERT INTO auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
VALUES
  ($1::uuid, $1::uuid, jsonb_build_object('sub', ($1::uuid)::text, 'email', 'ada@example.com', 'email_verified', true), 'email',
   now() - interval '2 days', now() - interval '30 days', now() - interval '2 days'),
  ($2::uuid, $2::uuid, jsonb_build_object('sub', ($2::uuid)::text, 'phone', '14155552671', 'phone_verified', true), 'phone',
   NULL, now() - interval '20 days', now() - interval '20 days'),
  ('108723456789012345678', $3::uuid, '{"sub":"108723456789012345678","email":"grace@example.com","email_verified":true,"iss":"https://accounts.google.com","name":"Grace Hopper"}',
   'google', now() - interval '1 day', now() - interval '10 days', now() - interval '1 day'),
  ($4::uuid, $4::uuid, jsonb_build_object('sub', ($4::uuid)::text, 'email', 'hopper@example.com', 'email_verified', false), 'email',
   NULL, now() - interval '1 day', now() - interval '1 day')
`,
  values: [ada, phoneUser, grace, hopper]
}

/** A documented shell block, run by bash in `folder` with exactly `env` (over a path). */
const runDocumented = (block: string, folder: string, env: Readonly<Record<string, string>>) => {
  const result = spawnSync("bash", ["-euo", "pipefail", "-c", block], {
    cwd: folder,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: result.status, output: `${result.stdout}${result.stderr}` }
}

describe("moving users from a Supabase project (docs/deployment.md)", () => {
  // psql connects to the databases by URL: a PostgreSQL server is needed. CI sets
  // TEST_DATABASE_URL, so it runs there.
  it.live.skipIf(TestDatabase.isEmbedded("server"))(
    "the documented export and import move users who then sign in, bcrypt hashes included",
    () =>
      Effect.gen(function* () {
        const supabaseUrl = Option.getOrThrow(yield* TestDatabase.freshUrl())
        yield* TestDatabase.query(supabaseUrl, supabaseSchema)
        const users = supabaseUsers()
        yield* TestDatabase.query(supabaseUrl, users.text, users.values)
        yield* TestDatabase.query(supabaseUrl, supabaseIdentities.text, supabaseIdentities.values)
        yield* TestDatabase.query(supabaseUrl, supabaseSoftDeleted.text, supabaseSoftDeleted.values)

        const { baseUrl, databaseUrl } = yield* Server.start()
        const latchkeyUrl = Option.getOrThrow(databaseUrl)

        const folder = mkdtempSync(join(tmpdir(), "latchkey-supabase-import-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(folder, { recursive: true, force: true })))
        writeFileSync(
          join(folder, "supabase-import.sql"),
          DocBlocks.tested("deployment.md", "supabase-import.sql")
        )
        const exported = runDocumented(DocBlocks.tested("deployment.md", "supabase-export"), folder, {
          SUPABASE_DB_URL: supabaseUrl
        })
        expect(exported.code, exported.output).toBe(0)
        const importBlock = DocBlocks.tested("deployment.md", "supabase-import")
        const imported = runDocumented(importBlock, folder, { DATABASE_URL: latchkeyUrl })
        expect(imported.code, imported.output).toBe(0)

        const anonKey = yield* Effect.promise(() => Supabase.apiKey("anon"))
        const app = Supabase.client(baseUrl, anonKey)

        // A bcrypt password, with the address as the user types it.
        const signedIn = yield* Effect.promise(() =>
          app.auth.signInWithPassword({ email: "ada@example.com", password: adaPassword })
        )
        expect(signedIn.error).toBeNull()
        expect(signedIn.data.user).toMatchObject({
          id: ada,
          email: "ada@example.com",
          user_metadata: { full_name: "Ada Lovelace" },
          app_metadata: { provider: "email", providers: ["email"] }
        })
        // Rehashed at that sign-in: argon2id from now on, and the password still works.
        const [stored] = yield* TestDatabase.query(
          latchkeyUrl,
          "SELECT encrypted_password FROM auth.users WHERE id = $1",
          [ada]
        )
        expect(String(stored?.encrypted_password)).toMatch(/^\$argon2id\$/)
        const again = yield* Effect.promise(() =>
          Supabase.client(baseUrl, anonKey).auth.signInWithPassword({
            email: "ada@example.com",
            password: adaPassword
          })
        )
        expect(again.error).toBeNull()
        const wrong = yield* Effect.promise(() =>
          Supabase.client(baseUrl, anonKey).auth.signInWithPassword({
            email: "ada@example.com",
            password: "not it"
          })
        )
        expect(Supabase.apiError(wrong.error)).toMatchObject({ status: 400, code: "invalid_credentials" })

        // A phone number as Supabase stores it (digits, no +), typed with the +.
        const byPhone = yield* Effect.promise(() =>
          Supabase.client(baseUrl, anonKey).auth.signInWithPassword({
            phone: "+1 415 555 2671",
            password: phonePassword
          })
        )
        expect(byPhone.error).toBeNull()
        expect(byPhone.data.user).toMatchObject({ id: phoneUser, phone: "14155552671" })
        // The empty address Supabase left became none.
        expect(byPhone.data.user?.email).toBe("")

        // An unconfirmed address stays unconfirmed; its clear-text confirmation token stayed behind.
        const unconfirmed = yield* Effect.promise(() =>
          Supabase.client(baseUrl, anonKey).auth.signInWithPassword({
            email: "hopper@example.com",
            password: hopperPassword
          })
        )
        expect(Supabase.apiError(unconfirmed.error)).toMatchObject({ code: "email_not_confirmed" })

        // A Google user keeps the identity, by the provider's subject.
        const serviceRole = yield* Effect.promise(() => Supabase.apiKey("service_role"))
        const fetched = yield* Effect.promise(() =>
          Supabase.client(baseUrl, serviceRole).auth.admin.getUserById(grace)
        )
        expect(fetched.error).toBeNull()
        expect(fetched.data.user?.identities?.map((identity) => [identity.provider, identity.id])).toEqual([
          ["google", "108723456789012345678"]
        ])
        expect(fetched.data.user?.email).toBe("grace@example.com")

        // A user Supabase Auth soft-deleted is read as this service's soft deletes are: no
        // digest stands for an address or a number.
        const admin = Supabase.client(baseUrl, serviceRole).auth.admin
        const gone = yield* Effect.promise(() => admin.getUserById(deleted))
        expect(gone.error).toBeNull()
        expect(gone.data.user).toMatchObject({
          id: deleted,
          email: "",
          phone: "",
          deleted_at: expect.any(String)
        })
        expect(gone.data.user?.new_email).toBeUndefined()
        const listed = yield* Effect.promise(() => admin.listUsers({ page: 1, perPage: 50 }))
        expect(listed.error).toBeNull()
        expect(listed.data.users.map((user) => user.id).sort()).toEqual(
          [ada, phoneUser, grace, hopper, deleted].sort()
        )

        // All or nothing: the same import again changes nothing.
        const twice = runDocumented(importBlock, folder, { DATABASE_URL: latchkeyUrl })
        expect(twice.code).not.toBe(0)
        const [count] = yield* TestDatabase.query(
          latchkeyUrl,
          "SELECT count(*)::int AS users FROM auth.users"
        )
        expect(count?.users).toBe(5)
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
