-- An attachment that could not be downloaded when its message arrived.
--
-- messages.media_error: the error code shown on the message (ERR_WAPP_DOWNLOAD_MEDIA), NULL when
-- the file is there or there is none. media_retry: what the channel needs to try again (the
-- core's FailedMedia as JSON; its locator sealed with the server's key), cleared once the file is
-- had; never sent to a browser.
ALTER TABLE messages ADD COLUMN media_error TEXT;
ALTER TABLE messages ADD COLUMN media_retry TEXT;
