-- The admin list shows soft-deleted users among the others, as Supabase Auth lists them
-- (UserRepository.list): its index covers every user of an audience, not only the live ones.
DROP INDEX auth.{{prefix}}users_aud_created_at_idx;
CREATE INDEX {{prefix}}users_aud_created_at_idx ON auth.{{prefix}}users (aud, created_at, id);
