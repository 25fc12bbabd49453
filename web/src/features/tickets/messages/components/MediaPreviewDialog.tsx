import { useState } from 'react';
import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Stack, TextField, Typography } from '@mui/material';
import InsertDriveFileIcon from '@mui/icons-material/InsertDriveFile';
import { useTranslation } from 'react-i18next';
import { useObjectUrl } from '../../../../lib/avatar';

function Preview({ file }: { file: File }) {
  const url = useObjectUrl(file.type.startsWith('image/') ? file : undefined);
  if (url) return <Box component="img" src={url} alt={file.name} sx={{ width: 72, height: 72, objectFit: 'cover', borderRadius: 1 }} />;
  return <InsertDriveFileIcon sx={{ width: 72, height: 72 }} color="action" />;
}

interface Props {
  files: File[];
  busy?: boolean;
  onClose: () => void;
  onSend: (items: { file: File; caption: string }[]) => void;
  /** Captions to start with (a quick answer's message); read when the dialog mounts. */
  initialCaptions?: string[];
}

/** Media preview with one caption per file (up to 5 rows each). */
export function MediaPreviewDialog({ files, busy, onClose, onSend, initialCaptions = [] }: Props) {
  const { t } = useTranslation();
  const [captions, setCaptions] = useState<string[]>(initialCaptions);
  return (
    <Dialog open={files.length > 0} onClose={onClose} fullWidth maxWidth="sm" data-testid="media-preview">
      <DialogTitle>{t('messages.media.title')}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          {files.map((file, i) => (
            <Stack key={`${file.name}-${i}`} direction="row" spacing={2} sx={{ alignItems: 'flex-start' }}>
              <Preview file={file} />
              <Box sx={{ flex: 1 }}>
                <Typography variant="caption" noWrap sx={{ display: 'block' }}>
                  {file.name}
                </Typography>
                <TextField
                  fullWidth
                  size="small"
                  multiline
                  maxRows={5}
                  placeholder={t('messages.media.caption')}
                  value={captions[i] ?? ''}
                  onChange={(e) => setCaptions((current) => {
                    const next = [...current];
                    next[i] = e.target.value;
                    return next;
                  })}
                  slotProps={{ htmlInput: { 'data-testid': `media-caption-${i}` } }}
                />
              </Box>
            </Stack>
          ))}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button
          onClick={() => {
            setCaptions([]);
            onClose();
          }}
        >
          {t('common.cancel')}
        </Button>
        <Button
          variant="contained"
          disabled={busy}
          data-testid="media-send"
          onClick={() => {
            onSend(files.map((file, i) => ({ file, caption: (captions[i] ?? '').trim() })));
            setCaptions([]);
          }}
        >
          {t('messages.send')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
