-- The mail outbox (application/auth/ports/MailOutbox.ts): a message is written here in the
-- transaction of the state that needs it and rendered and delivered afterwards by a worker of
-- any instance. `variables` (JSON text, as the user's own keys must stay as they are) holds the
-- message's links and codes, so it is emptied once the message is delivered or given up; the
-- rest stays as the record of what was sent to whom.
CREATE TABLE auth.{{prefix}}mail_outbox (
  id              uuid PRIMARY KEY,
  kind            text NOT NULL,
  recipient       text NOT NULL,
  variables       text,
  queued_at       timestamptz NOT NULL,
  -- When the message is next due; NULL once it is delivered or given up.
  due_at          timestamptz,
  -- A worker's claim: until then no other worker takes the message.
  leased_until    timestamptz,
  attempts        integer NOT NULL DEFAULT 0,
  last_error      text,
  delivered_at    timestamptz,
  given_up_at     timestamptz
);
-- What the workers look for: the messages still due, by when.
CREATE INDEX {{prefix}}mail_outbox_due_idx ON auth.{{prefix}}mail_outbox (due_at) WHERE due_at IS NOT NULL;
