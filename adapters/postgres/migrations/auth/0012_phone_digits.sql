-- Phone numbers as Supabase Auth stores them: E.164's digits without the `+` (domain/User.ts
-- `Phone`), so that responses, tokens and a database moved from Supabase Auth agree. Numbers
-- stored before this migration carried the `+`.
UPDATE auth.{{prefix}}users SET phone = substr(phone, 2) WHERE phone LIKE '+%';
UPDATE auth.{{prefix}}users SET phone_change = substr(phone_change, 2) WHERE phone_change LIKE '+%';
UPDATE auth.{{prefix}}identities
  SET identity_data = jsonb_set(identity_data, '{phone}', to_jsonb(substr(identity_data ->> 'phone', 2)))
  WHERE provider = 'phone' AND identity_data ->> 'phone' LIKE '+%';
UPDATE auth.{{prefix}}one_time_tokens SET sent_to = substr(sent_to, 2) WHERE sent_to ~ '^\+[1-9][0-9]{1,14}$';
