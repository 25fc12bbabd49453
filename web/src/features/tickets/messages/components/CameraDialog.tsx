import { useEffect, useRef, useState } from 'react';
import { Box, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle } from '@mui/material';
import PhotoCameraIcon from '@mui/icons-material/PhotoCamera';
import { useTranslation } from 'react-i18next';
import { toastError } from '../../../../lib/toast';
import { CAMERA_CONSTRAINTS, captureFrame, photoName } from '../camera';

interface Props {
  open: boolean;
  onClose: () => void;
  /** The photo taken, as a JPEG file; it then goes through the media preview. */
  onCapture: (file: File) => void;
}

/** Camera capture dialog: a live preview of the (rear) camera and a button that takes a photo. */
export function CameraDialog({ open, onClose, onCapture }: Props) {
  const { t } = useTranslation();
  const video = useRef<HTMLVideoElement | null>(null);
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [busy, setBusy] = useState(false);
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });

  useEffect(() => {
    if (!open) return;
    let cancelled = false;
    let opened: MediaStream | null = null;
    navigator.mediaDevices
      .getUserMedia(CAMERA_CONSTRAINTS)
      .then((media) => {
        opened = media;
        if (cancelled) media.getTracks().forEach((track) => track.stop());
        else setStream(media);
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        toastError(error);
        close.current();
      });
    return () => {
      cancelled = true;
      opened?.getTracks().forEach((track) => track.stop());
      setStream(null);
    };
  }, [open]);

  useEffect(() => {
    const element = video.current;
    if (!element || !stream) return;
    element.srcObject = stream;
    void element.play?.()?.catch(() => undefined);
  }, [stream]);

  const take = async () => {
    if (!video.current) return;
    setBusy(true);
    try {
      const blob = await captureFrame(video.current);
      onCapture(new File([blob], photoName(), { type: 'image/jpeg' }));
    } catch (error) {
      toastError(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" data-testid="camera-dialog">
      <DialogTitle>{t('messages.camera.title')}</DialogTitle>
      <DialogContent>
        <Box sx={{ position: 'relative', bgcolor: 'black', borderRadius: 1, minHeight: 240, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
          {!stream && <CircularProgress sx={{ position: 'absolute' }} />}
          <Box component="video" ref={video} autoPlay playsInline muted sx={{ width: '100%', maxHeight: '60vh', display: 'block' }} data-testid="camera-video" />
        </Box>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" startIcon={<PhotoCameraIcon />} disabled={!stream || busy} onClick={() => void take()} data-testid="camera-capture">
          {t('messages.camera.capture')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
