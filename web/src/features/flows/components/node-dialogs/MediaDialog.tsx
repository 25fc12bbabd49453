/** The image, audio and video nodes: one file each. */
import { useState, type ChangeEvent } from 'react';
import { Alert, Button, Dialog, FormControlLabel, Switch, Typography } from '@mui/material';
import { useTranslation } from 'react-i18next';
import { toastFlowError } from '../../utils/errors';
import { mediaAccept, type MediaType } from '../../utils/nodes';
import { DialogShell, type LimitedProps } from './shell';
import { uploadOne } from './upload';
import { MediaPreview } from './MediaPreview';

export function MediaDialog({ data, onSubmit, onClose, media, limits }: LimitedProps<MediaType> & { media: MediaType }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState(data?.url ?? '');
  const [record, setRecord] = useState(data?.record ?? false);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setProblem(null);
    setBusy(true);
    try {
      const name = await uploadOne(media, file, limits, false, setProblem);
      if (name) setUrl(name);
    } catch (error) {
      toastFlowError(error, t);
    } finally {
      setBusy(false);
    }
  };

  const confirm = () => {
    if (!url) {
      setProblem('flows.validation.emptyMedia');
      return;
    }
    onSubmit({ ...data, url, record: media === 'audio' ? record : (data?.record ?? false) });
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="sm" data-testid={`node-dialog-${media}`}>
      <DialogShell type={media} editing={!!data} onClose={onClose} busy={busy} onConfirm={confirm}>
        <Button variant="outlined" component="label" disabled={busy} data-testid="node-media-choose">
          {busy ? t('flows.dialog.uploading') : t('flows.dialog.file')}
          <input type="file" hidden accept={mediaAccept(limits, media)} onChange={(event) => void onFile(event)} data-testid="node-media-file" />
        </Button>
        <Typography variant="body2" data-testid="node-media-name">
          {url || t('flows.node.noFile')}
        </Typography>
        {url && <MediaPreview kind={media} name={url} />}
        {media === 'audio' && (
          <FormControlLabel control={<Switch checked={record} onChange={(event) => setRecord(event.target.checked)} />} label={t('flows.dialog.record')} />
        )}
        {problem && (
          <Alert severity="error" data-testid="node-dialog-error">
            {t(problem as 'flows.validation.emptyMedia')}
          </Alert>
        )}
      </DialogShell>
    </Dialog>
  );
}
