-- Every event is now one typed `Event` (`chatflow_core::events`): the untyped `other` entries
-- written before cannot be read any more. The log is a 24-hour replay buffer, so it is emptied
-- (sequence numbers go on from `companies.event_seq`): a client that reconnects with an older
-- `seq` is told to refresh, as when the log no longer holds what it missed.
DELETE FROM events;
