/** The preview of a stored media file. */
import { Box } from '@mui/material';
import { useObjectUrl } from '../../../../lib/avatar';
import { useFlowMedia } from '../../api/flows';
import type { MediaType } from '../../utils/nodes';

/** Shows a stored image, or plays a stored audio or video. */
export function MediaPreview({ kind, name }: { kind: MediaType; name: string }) {
  const media = useFlowMedia(name);
  const url = useObjectUrl(media.data);
  if (!url) return null;
  if (kind === 'img') return <Box component="img" src={url} alt={name} sx={{ maxWidth: '100%', maxHeight: 240, objectFit: 'contain' }} data-testid="node-media-preview" />;
  if (kind === 'audio') return <audio controls src={url} data-testid="node-media-preview" />;
  return <Box component="video" controls src={url} sx={{ maxWidth: '100%', maxHeight: 240 }} data-testid="node-media-preview" />;
}
