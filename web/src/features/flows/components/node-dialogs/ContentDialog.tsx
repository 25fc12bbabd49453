/** The content node: a sequence of messages, pauses and media. */
import { useState, type ChangeEvent } from 'react';
import { Alert, Box, Button, Dialog, FormControlLabel, IconButton, Paper, Stack, Switch, TextField, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlineOutlined';
import { useTranslation } from 'react-i18next';
import { toastFlowError } from '../../utils/errors';
import type { ContentData } from '../../../../lib/core-types/generated';
import { contentProblem, mediaAccept, type ContentElement, type MediaType } from '../../utils/nodes';
import { DialogShell, type LimitedProps } from './shell';
import { uploadOne } from './upload';

const ELEMENT_TYPES: readonly string[] = ['message', 'interval', 'img', 'audio', 'video'] satisfies ContentElement['type'][];

function elementType(type: string): ContentElement['type'] {
  return ELEMENT_TYPES.includes(type) ? (type as ContentElement['type']) : 'message';
}

function readElements(data: ContentData | null): ContentElement[] {
  if (!data) return [];
  const elements = data.elements.map((e): ContentElement => ({ ...e, type: elementType(e.type) }));
  return [...elements].sort((a, b) => {
    const ia = data.seq.indexOf(a.number);
    const ib = data.seq.indexOf(b.number);
    return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  });
}

export function ContentDialog({ data, onSubmit, onClose, limits }: LimitedProps<'content'>) {
  const { t } = useTranslation();
  const [elements, setElements] = useState<ContentElement[]>(() => readElements(data));
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const add = (type: ContentElement['type']) => {
    const used = new Set(elements.map((e) => e.number));
    let n = 0;
    while (used.has(`${type}${n}`)) n += 1;
    setElements([...elements, { type, value: '', original: '', number: `${type}${n}`, record: false }]);
  };
  const update = (index: number, patch: Partial<ContentElement>) => setElements((list) => list.map((e, i) => (i === index ? { ...e, ...patch } : e)));
  const move = (index: number, by: number) =>
    setElements((list) => {
      const next = [...list];
      const [item] = next.splice(index, 1);
      next.splice(Math.max(0, Math.min(next.length, index + by)), 0, item);
      return next;
    });

  const onFile = async (index: number, kind: MediaType, event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    setProblem(null);
    setBusy(true);
    try {
      const name = await uploadOne(kind, file, limits, true, setProblem);
      if (name) update(index, { value: name, original: file.name });
    } catch (error) {
      toastFlowError(error, t);
    } finally {
      setBusy(false);
    }
  };

  const confirm = () => {
    const found = contentProblem(elements, limits);
    if (found) {
      setProblem(found);
      return;
    }
    onSubmit({ ...data, seq: elements.map((e) => e.number), elements: elements.map((e) => ({ ...e })) });
  };

  return (
    <Dialog open onClose={onClose} fullWidth maxWidth="md" data-testid="node-dialog-content">
      <DialogShell type="content" editing={!!data} onClose={onClose} busy={busy} onConfirm={confirm}>
        {elements.map((element, index) => (
          <Paper key={element.number} variant="outlined" sx={{ p: 1.5 }} data-testid={`node-content-element-${index}`}>
            <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
              <Typography variant="subtitle2" sx={{ minWidth: 72 }}>
                {t(`flows.types.${element.type}`)}
              </Typography>
              <Box sx={{ flex: 1 }}>
                {element.type === 'message' && (
                  <TextField
                    multiline
                    minRows={2}
                    fullWidth
                    size="small"
                    value={element.value}
                    onChange={(event) => update(index, { value: event.target.value })}
                    slotProps={{ htmlInput: { 'data-testid': `node-content-value-${index}` } }}
                  />
                )}
                {element.type === 'interval' && (
                  <TextField
                    type="number"
                    size="small"
                    label={t('flows.dialog.seconds')}
                    value={element.value}
                    onChange={(event) => update(index, { value: event.target.value })}
                    slotProps={{ htmlInput: { 'data-testid': `node-content-value-${index}` } }}
                  />
                )}
                {(element.type === 'img' || element.type === 'audio' || element.type === 'video') && (
                  <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                    <Button size="small" variant="outlined" component="label" disabled={busy}>
                      {t('flows.dialog.file')}
                      <input
                        type="file"
                        hidden
                        accept={mediaAccept(limits, element.type as MediaType, true)}
                        onChange={(event) => void onFile(index, element.type as MediaType, event)}
                        data-testid={`node-content-file-${index}`}
                      />
                    </Button>
                    <Typography variant="body2">{element.original || element.value || t('flows.node.noFile')}</Typography>
                    {element.type === 'audio' && (
                      <FormControlLabel
                        control={<Switch size="small" checked={!!element.record} onChange={(event) => update(index, { record: event.target.checked })} />}
                        label={t('flows.dialog.record')}
                      />
                    )}
                  </Stack>
                )}
              </Box>
              <IconButton size="small" onClick={() => move(index, -1)} disabled={index === 0} aria-label={t('flows.dialog.moveUp')}>
                <ArrowUpwardIcon fontSize="small" />
              </IconButton>
              <IconButton size="small" onClick={() => move(index, 1)} disabled={index === elements.length - 1} aria-label={t('flows.dialog.moveDown')}>
                <ArrowDownwardIcon fontSize="small" />
              </IconButton>
              <IconButton size="small" onClick={() => setElements((list) => list.filter((_, i) => i !== index))} aria-label={t('flows.dialog.removeElement')} data-testid={`node-content-remove-${index}`}>
                <DeleteOutlineIcon fontSize="small" />
              </IconButton>
            </Stack>
          </Paper>
        ))}
        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('message')} data-testid="node-content-add-message">
            {t('flows.dialog.addText')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('interval')} data-testid="node-content-add-interval">
            {t('flows.dialog.addInterval')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('img')} data-testid="node-content-add-img">
            {t('flows.dialog.addImage')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('audio')} data-testid="node-content-add-audio">
            {t('flows.dialog.addAudio')}
          </Button>
          <Button size="small" startIcon={<AddIcon />} onClick={() => add('video')} data-testid="node-content-add-video">
            {t('flows.dialog.addVideo')}
          </Button>
        </Stack>
        {problem && (
          <Alert severity="error" data-testid="node-dialog-error">
            {t(problem as 'flows.validation.emptyMedia')}
          </Alert>
        )}
      </DialogShell>
    </Dialog>
  );
}
