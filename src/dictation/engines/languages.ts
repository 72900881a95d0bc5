/** Languages whisper.cpp knows (`g_lang` in whisper.cpp 1.7), code → English name; "yue" needs large-v3. */
export const WHISPER_LANGUAGES: ReadonlyMap<string, string> = new Map(
  (
    "en:english, zh:chinese, de:german, es:spanish, ru:russian, ko:korean, fr:french, ja:japanese," +
    "pt:portuguese, tr:turkish, pl:polish, ca:catalan, nl:dutch, ar:arabic, sv:swedish, it:italian," +
    "id:indonesian, hi:hindi, fi:finnish, vi:vietnamese, he:hebrew, uk:ukrainian, el:greek, ms:malay," +
    "cs:czech, ro:romanian, da:danish, hu:hungarian, ta:tamil, no:norwegian, th:thai, ur:urdu," +
    "hr:croatian, bg:bulgarian, lt:lithuanian, la:latin, mi:maori, ml:malayalam, cy:welsh, sk:slovak," +
    "te:telugu, fa:persian, lv:latvian, bn:bengali, sr:serbian, az:azerbaijani, sl:slovenian, kn:kannada," +
    "et:estonian, mk:macedonian, br:breton, eu:basque, is:icelandic, hy:armenian, ne:nepali, mn:mongolian," +
    "bs:bosnian, kk:kazakh, sq:albanian, sw:swahili, gl:galician, mr:marathi, pa:punjabi, si:sinhala," +
    "km:khmer, sn:shona, yo:yoruba, so:somali, af:afrikaans, oc:occitan, ka:georgian, be:belarusian," +
    "tg:tajik, sd:sindhi, gu:gujarati, am:amharic, yi:yiddish, lo:lao, uz:uzbek, fo:faroese," +
    "ht:haitian creole, ps:pashto, tk:turkmen, nn:nynorsk, mt:maltese, sa:sanskrit, lb:luxembourgish," +
    "my:myanmar, bo:tibetan, tl:tagalog, mg:malagasy, as:assamese, tt:tatar, haw:hawaiian, ln:lingala," +
    "ha:hausa, ba:bashkir, jw:javanese, su:sundanese, yue:cantonese,"
  )
    .split(",")
    .filter((pair) => pair.trim() !== "")
    .map((pair) => pair.trim().split(":") as [string, string]),
);

const BY_NAME = new Map([...WHISPER_LANGUAGES].map(([code, name]) => [name, code]));

/** A language as an ISO code: servers answer "en" or, like OpenAI's verbose_json, "english". */
export function languageCode(value: string): string {
  const lower = value.trim().toLowerCase();
  return WHISPER_LANGUAGES.has(lower) ? lower : (BY_NAME.get(lower) ?? lower);
}

/** Every code whisper.cpp speaks, sorted: a multilingual model's languages. */
export const whisperLanguageCodes: readonly string[] = [...WHISPER_LANGUAGES.keys()].sort();
