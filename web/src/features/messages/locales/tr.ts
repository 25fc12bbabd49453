import type pt from './pt';

const messages: typeof pt = {
  messages: {
    placeholder: 'Bir mesaj yazın',
    placeholderPrivate: 'Özel bir not yazın',
    send: 'Gönder',
    emoji: 'Emoji',
    attach: 'Dosya ekle',
    sendContact: 'Kişi gönder',
    privateNote: 'Özel not',
    privateOn: 'Özel not: açık',
    privateOff: 'Özel not: kapalı',
    sign: 'Mesajı imzala',
    readOnly: 'Yanıtlamak için talebi kabul edin veya yeniden açın.',
    options: 'Mesaj seçenekleri',
    replyingTo: 'Yanıtlanan',
    editing: 'Mesaj düzenleniyor',
    edited: 'Düzenlendi',
    forwarded: 'İletildi',
    deletedOwn: 'Bu mesaj silindi',
    deletedByContact: 'Mesaj kişi tarafından silindi',
    deletedQuoted: 'Silinmiş mesaj',
    callLog: '{{time}} cevapsız arama',
    reply24h: 'Bu mesajı yanıtlamak için 24 saatiniz var.',
    mediaError: 'Medya yüklenemedi.',
    download: 'İndir',
    deleteTitle: 'Mesaj silinsin mi?',
    deleteMessage: 'Mesaj herkes için silinecek.',
    ack: { clock: 'Gönderiliyor', sent: 'Gönderildi', delivered: 'Teslim edildi', read: 'Okundu', played: 'Dinlendi' },
    actions: { reply: 'Yanıtla', forward: 'İlet', edit: 'Düzenle', delete: 'Sil', react: 'Tepki ver' },
    media: { title: 'Dosya gönder', caption: 'Açıklama' },
    forward: { title: 'Mesajı ilet', submit: 'İlet', done: 'Mesaj iletildi', noMessage: 'Mesaj seçilmedi' },
    pick: { contact: 'Kişi', typeMore: 'En az 3 karakter yazın' },
  },
};

export default messages;
