/**
 * The one key two team names are compared by: rivalTeam against favoriteTeam
 * (the profile rules) and a fan's favoriteTeam against a board's team filter
 * (the team leaderboards). Pure, so both the domain and the queries import it
 * from here (db/ imports nothing from src/).
 *
 * It is Unicode's NFKC_Casefold idea: default-ignorable code points (zero-width
 * spaces and joiners, soft hyphens, variation selectors, …) removed, NFKC
 * (fullwidth and compatibility forms become their plain letters), then a full
 * case fold. JavaScript has no case-fold primitive; upper-casing and then
 * lower-casing folds the cases that matter here the same way (ß and SS, final
 * and medial sigma, fullwidth letters after NFKC), and a second NFKC puts back
 * anything casing decomposed. So "Arsenal", "ARSENAL", "Ａｒｓｅｎａｌ",
 * "Arse\u00ADnal" and "Arsenal\u200B" all have the key "arsenal".
 */
export function teamKey(team: string): string {
  return team
    .replace(DEFAULT_IGNORABLE, '')
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC')
    .replace(DEFAULT_IGNORABLE, '')
    .trim();
}

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
