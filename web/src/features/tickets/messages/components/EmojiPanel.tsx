/**
 * The emoji picker itself (emoji-picker-react, native emoji, no network). Loaded lazily by
 * EmojiButton, so neither the picker nor its data weigh on the main bundle. The emoji names
 * follow the interface language where the library ships them (pt, es), English otherwise.
 */
import { useEffect, useState } from 'react';
import EmojiPicker, { EmojiStyle, Theme, type EmojiData } from 'emoji-picker-react';
import { Box, CircularProgress } from '@mui/material';
import { useTheme } from '@mui/material/styles';
import { useTranslation } from 'react-i18next';

const DATASETS: Partial<Record<string, () => Promise<{ default: EmojiData }>>> = {
  pt: () => import('emoji-picker-react/data/emojis-pt'),
  es: () => import('emoji-picker-react/data/emojis-es'),
};

interface Props {
  onPick: (emoji: string) => void;
}

export default function EmojiPanel({ onPick }: Props) {
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const language = i18n.resolvedLanguage ?? i18n.language;
  const load = DATASETS[language];
  const [loaded, setLoaded] = useState<{ language: string; data: EmojiData } | null>(null);

  useEffect(() => {
    if (!load) return;
    let alive = true;
    load()
      .then((module) => {
        if (alive) setLoaded({ language, data: module.default });
      })
      .catch(() => {
        // The English names built into the picker do.
        if (alive) setLoaded(null);
      });
    return () => {
      alive = false;
    };
  }, [load, language]);

  const data = loaded?.language === language ? loaded.data : undefined;
  if (load && !data) {
    return (
      <Box sx={{ width: 320, height: 380, display: 'flex', alignItems: 'center', justifyContent: 'center' }}>
        <CircularProgress size={24} />
      </Box>
    );
  }
  return (
    <EmojiPicker
      emojiData={data}
      emojiStyle={EmojiStyle.NATIVE}
      theme={theme.palette.mode === 'dark' ? Theme.DARK : Theme.LIGHT}
      width={320}
      height={380}
      previewConfig={{ showPreview: false }}
      lazyLoadEmojis
      labels={{ searchPlaceholder: t('messages.emojiPicker.search'), searchLabel: t('messages.emojiPicker.search'), searchResultsNone: t('messages.emojiPicker.none') }}
      onEmojiClick={(emoji) => onPick(emoji.emoji)}
    />
  );
}
