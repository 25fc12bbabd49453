import { useEffect, useRef, useState } from 'react';
import { Box, CircularProgress, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import CancelIcon from '@mui/icons-material/HighlightOff';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import FiberManualRecordIcon from '@mui/icons-material/FiberManualRecord';
import MicIcon from '@mui/icons-material/Mic';
import { useTranslation } from 'react-i18next';
import { toast, toastError } from '../../../../lib/toast';
import { MIN_VOICE_NOTE_BYTES } from '../audio/mp3';
import { formatElapsed, nextRecorderStatus, recordingToMp3, startRecording, type Recording, type RecorderEvent, type RecorderStatus } from '../audio/recorder';

interface Props {
  /** Sends the encoded voice note (`audio-<ts>.mp3`, audio/mpeg). */
  onSend: (file: File) => Promise<void>;
  /** Told when the recorder takes the input row (recording or sending) and gives it back. */
  onActiveChange?: (active: boolean) => void;
  disabled?: boolean;
}

/**
 * The voice note control of the message input (spec 1 "Ticket view"): a microphone button;
 * while recording, cancel, a count-up timer from 00:00 and send; then sending, or cancelled.
 */
export function AudioRecorder({ onSend, onActiveChange, disabled }: Props) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<RecorderStatus>('idle');
  const [startedAt, setStartedAt] = useState(0);
  const [now, setNow] = useState(0);
  const recording = useRef<Recording | null>(null);
  const activeChange = useRef(onActiveChange);
  useEffect(() => {
    activeChange.current = onActiveChange;
  });

  const go = (event: RecorderEvent) => setStatus((current) => nextRecorderStatus(current, event));
  const active = status === 'recording' || status === 'sending';
  useEffect(() => {
    activeChange.current?.(active);
  }, [active]);

  useEffect(() => {
    if (status !== 'recording') return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [status]);

  // Leaving the ticket mid-recording releases the microphone.
  useEffect(() => () => recording.current?.cancel(), []);

  const start = async () => {
    if (status !== 'idle' && status !== 'cancelled') return;
    try {
      recording.current = await startRecording();
    } catch (error) {
      toastError(error);
      return;
    }
    const at = Date.now();
    setStartedAt(at);
    setNow(at);
    go('start');
  };

  const cancel = () => {
    recording.current?.cancel();
    recording.current = null;
    go('cancel');
  };

  const send = async () => {
    const current = recording.current;
    if (!current || status !== 'recording') return;
    recording.current = null;
    go('send');
    try {
      const file = await recordingToMp3(await current.stop());
      if (file.size < MIN_VOICE_NOTE_BYTES) {
        toast.warning(t('messages.audio.tooShort'));
        setStatus('cancelled');
        return;
      }
      await onSend(file);
      go('done');
    } catch (error) {
      toastError(error);
      setStatus('cancelled');
    }
  };

  if (status === 'recording' || status === 'sending') {
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flex: 1, justifyContent: 'flex-end' }} data-testid="audio-recorder" data-state={status}>
        {status === 'sending' ? (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 1 }}>
            <CircularProgress size={24} />
            <Typography variant="body2" color="text.secondary">
              {t('messages.audio.sending')}
            </Typography>
          </Box>
        ) : (
          <>
            <Tooltip title={t('messages.audio.cancel')}>
              <IconButton onClick={cancel} color="error" aria-label={t('messages.audio.cancel')} data-testid="audio-cancel">
                <CancelIcon />
              </IconButton>
            </Tooltip>
            <FiberManualRecordIcon fontSize="small" color="error" />
            <Typography variant="body1" sx={{ fontVariantNumeric: 'tabular-nums', minWidth: 48 }} aria-live="off" data-testid="audio-timer">
              {formatElapsed(now - startedAt)}
            </Typography>
            <Tooltip title={t('messages.audio.send')}>
              <IconButton onClick={() => void send()} color="success" aria-label={t('messages.audio.send')} data-testid="audio-send">
                <CheckCircleIcon />
              </IconButton>
            </Tooltip>
          </>
        )}
      </Stack>
    );
  }

  return (
    <Tooltip title={t('messages.audio.record')}>
      <span>
        <IconButton color="primary" onClick={() => void start()} disabled={disabled} aria-label={t('messages.audio.record')} data-testid="audio-record" data-state={status}>
          <MicIcon />
        </IconButton>
      </span>
    </Tooltip>
  );
}
