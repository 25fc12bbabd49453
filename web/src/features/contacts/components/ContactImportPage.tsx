import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import {
  Alert,
  Box,
  Button,
  MenuItem,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { PageLoader } from '../../../components/ui';
import { toast, toastError } from '../../../lib/toast';
import { contactsKeys } from '../api/contacts';
import {
  ACCEPTED_EXTENSIONS,
  assignField,
  availableFields,
  guessMapping,
  importContacts,
  isAcceptedFile,
  missingFields,
  rowCells,
  uploadContactsFile,
  type ColumnMapping,
  type ImportField,
  type ImportResult,
  type UploadResult,
} from '../api/import';

/** /contacts/import: choose a file, map its columns, preview, import (spec 1 §5, §9). */
export function ContactImportPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  const [upload, setUpload] = useState<UploadResult | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping>({});
  const [busy, setBusy] = useState<'upload' | 'import' | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    if (!isAcceptedFile(file.name)) {
      toast.error(t('contacts.import.invalidFile'));
      return;
    }
    setBusy('upload');
    setResult(null);
    try {
      const uploaded = await uploadContactsFile(file);
      setFileName(file.name);
      setUpload(uploaded);
      setMapping(guessMapping(uploaded.columns));
    } catch (error) {
      toastError(error);
    } finally {
      setBusy(null);
      if (input.current) input.current.value = '';
    }
  };

  const missing = missingFields(mapping);

  const onImport = async () => {
    if (!upload || missing.length > 0) return;
    setBusy('import');
    try {
      const done = await importContacts(upload.token, mapping);
      setResult(done);
      void queryClient.invalidateQueries({ queryKey: contactsKeys.all });
      if (done.failed > 0) toast.warning(t('contacts.import.doneWithErrors'));
      else toast.success(t('contacts.import.done'));
    } catch (error) {
      toastError(error);
    } finally {
      setBusy(null);
    }
  };

  const fieldLabel = (field: ImportField) => t(`contacts.import.fields.${field}`);

  return (
    <Stack spacing={2} data-testid="contacts-import-page">
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
        <Button startIcon={<ArrowBackIcon />} onClick={() => void navigate('/contacts')} data-testid="contacts-import-back">
          {t('common.back')}
        </Button>
        <Typography variant="h5" component="h1">
          {t('contacts.import.title')}
        </Typography>
      </Stack>

      <Paper variant="outlined" sx={{ p: 2 }}>
        <Stack spacing={1}>
          <Typography variant="subtitle1">{t('contacts.import.step1')}</Typography>
          <Typography variant="body2" color="text.secondary">
            {t('contacts.import.accepted', { extensions: ACCEPTED_EXTENSIONS.join(', ') })}
          </Typography>
          <Box>
            <Button variant="contained" startIcon={<UploadFileIcon />} onClick={() => input.current?.click()} disabled={busy !== null} data-testid="contacts-import-choose">
              {t('contacts.import.chooseFile')}
            </Button>
            <input
              ref={input}
              type="file"
              hidden
              accept={ACCEPTED_EXTENSIONS.map((e) => `.${e}`).join(',')}
              onChange={(event) => void onFile(event.target.files?.[0])}
              data-testid="contacts-import-file"
            />
            {fileName && (
              <Typography component="span" variant="body2" sx={{ ml: 2 }} data-testid="contacts-import-filename">
                {fileName}
                {upload?.total != null && ` · ${t('contacts.import.rows', { count: upload.total })}`}
              </Typography>
            )}
          </Box>
          {busy === 'upload' && <PageLoader />}
        </Stack>
      </Paper>

      {upload && (
        <Paper variant="outlined" sx={{ p: 2 }}>
          <Stack spacing={2}>
            <Typography variant="subtitle1">{t('contacts.import.step2')}</Typography>
            <Typography variant="body2" color="text.secondary">
              {t('contacts.import.mappingHelp')}
            </Typography>
            <TableContainer sx={{ maxHeight: 480 }}>
              <Table size="small" stickyHeader data-testid="contacts-import-preview">
                <TableHead>
                  <TableRow>
                    {upload.columns.map((column, index) => (
                      <TableCell key={column} sx={{ minWidth: 160, verticalAlign: 'top' }}>
                        <Typography variant="subtitle2" gutterBottom>
                          {column}
                        </Typography>
                        <TextField
                          select
                          size="small"
                          fullWidth
                          value={mapping[column] ?? ''}
                          onChange={(event) => setMapping((m) => assignField(m, column, event.target.value as ImportField | ''))}
                          slotProps={{ htmlInput: { 'data-testid': `contacts-import-map-${index}`, 'aria-label': t('contacts.import.fieldFor', { column }) } }}
                        >
                          <MenuItem value="">{t('contacts.import.ignore')}</MenuItem>
                          {(['name', 'number', 'email', 'tags'] as const).map((field) => (
                            <MenuItem key={field} value={field} disabled={!availableFields(mapping, column).includes(field)} data-testid={`contacts-import-option-${field}`}>
                              {fieldLabel(field)}
                            </MenuItem>
                          ))}
                        </TextField>
                      </TableCell>
                    ))}
                  </TableRow>
                </TableHead>
                <TableBody>
                  {upload.rows.map((row, rowIndex) => (
                    <TableRow key={rowIndex}>
                      {rowCells(row, upload.columns).map((value, index) => (
                        <TableCell key={index}>{value}</TableCell>
                      ))}
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
            {upload.total != null && upload.total > upload.rows.length && (
              <Typography variant="caption" color="text.secondary">
                {t('contacts.import.previewOf', { shown: upload.rows.length, total: upload.total })}
              </Typography>
            )}
            {missing.length > 0 && (
              <Alert severity="warning" data-testid="contacts-import-missing">
                {t('contacts.import.required', { fields: missing.map(fieldLabel).join(', ') })}
              </Alert>
            )}
            <Box>
              <Button
                variant="contained"
                onClick={() => void onImport()}
                disabled={missing.length > 0 || busy !== null || upload.rows.length === 0}
                data-testid="contacts-import-submit"
              >
                {t('contacts.import.submit')}
              </Button>
            </Box>
            {busy === 'import' && <PageLoader />}
          </Stack>
        </Paper>
      )}

      {result && (
        <Paper variant="outlined" sx={{ p: 2 }} data-testid="contacts-import-result">
          <Stack spacing={1}>
            <Typography variant="subtitle1">{t('contacts.import.result')}</Typography>
            <Typography data-testid="contacts-import-imported">{t('contacts.import.imported', { count: result.imported })}</Typography>
            <Typography data-testid="contacts-import-ignored">{t('contacts.import.ignored', { count: result.ignored })}</Typography>
            <Typography data-testid="contacts-import-failed">{t('contacts.import.failed', { count: result.failed })}</Typography>
            {(result.errors ?? []).slice(0, 50).map((error) => (
              <Typography key={`${error.row}-${error.error}`} variant="body2" color="error">
                {t('contacts.import.rowError', { row: error.row, error: error.error })}
              </Typography>
            ))}
          </Stack>
        </Paper>
      )}
    </Stack>
  );
}
