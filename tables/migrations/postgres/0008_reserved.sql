-- A stand-in for migration 0008, which another branch (history: timeout flags) adds; numbers run
-- without gaps, so this branch's 0009 needs one here.  Replaced by that branch's file at merge.
SELECT 1;
