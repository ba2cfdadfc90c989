-- Stream machine rows without their definition.
--
-- commit_machine_ops rewrites machines.definition (a whole statechart, tens of KB for a
-- few hundred states) on every commit, so with the full row published every edit made
-- the walsender detoast and print it and the realtime server decode, convert and send it
-- to each machine-list subscriber, on the same path and in the same order as the small
-- machine_ops insert that other editors are waiting for. Nothing listens for the
-- definition there: editors follow machine_ops, and the machine list only shows a
-- machine's summary. So `machines` is published with a column list of the summary
-- columns; a machine-list subscriber gets those, an edit costs a few hundred bytes.
--
-- Hosted Supabase streams postgres changes through wal2json with the publication's table
-- list and does not apply column lists, so there a subscriber would still receive
-- `definition` too: read only the summary columns from a `machines` change.

alter publication supabase_realtime drop table public.machines;
alter publication supabase_realtime add table public.machines
  (id, project_id, name, version, created_by, created_at, updated_at);
