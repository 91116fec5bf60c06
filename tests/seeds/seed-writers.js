#!/usr/bin/env node
// Writes items exactly as the seed documents' own code stores them, independently of ddbpipe's
// mappings, so tests can prove that a shipped mapping reads what the seeds' code writes.
//
//   node tests/seeds/seed-writers.js favorites|facility|movies [COUNT] [SEED]
//
// prints one {"Item":{...}} line per item (DynamoDB JSON, as an Export to S3 writes it).
//
// favorites (seed 004): the Java DTOs TagDto, FavoriteDataDto, FavoriteDataTagDto and
//   KeyGenerator, transliterated getter by getter, stored the way the AWS SDK for Java's
//   DynamoDBMapper converts values (StandardTypeConverters): a long -> N (Long.toString), a
//   String -> S, an enum under @DynamoDBTypeConvertedEnum -> S holding Enum.name(); a null
//   attribute is not written; @DynamoDBIgnore fields (userId, dataId, tagId) are not stored.
//   String concatenation follows Java: StringBuilder.append(null) appends "null".
// facility (seeds 000/001): the Kotlin data class FacilityCapacity (hash key facilityId, range
//   key moment) and MomentConverter: WeekDay -> DayOfWeek.toString() ("MONDAY"), ExceptionDate
//   -> LocalDate.toString() ("2021-03-13"); capacity Long? -> N; description String? -> S.
// movies (seed 002): the design as its text describes it (the seed has no code): pk/sk with
//   mov#/act# prefixes, cast members in the movie's collection (sk act#...), GSI-1 the inverted
//   index over (sk, pk), GSI-2 a sparse index gsi2pk/gsi2sk holding only monthly stream
//   totals, individual streams in the movie's collection.
'use strict';

const design = process.argv[2];
const count = Number(process.argv[3] || 60);
let state = BigInt(process.argv[4] || 20240601) & 0xffffffffffffffffn;

// splitmix64: deterministic across Node versions
function next64() {
  state = (state + 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffffffffffffffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffffffffffffffffn;
  return z ^ (z >> 31n);
}
const rnd = (n) => Number(next64() % BigInt(n));
const pick = (a) => a[rnd(a.length)];

// ---- the seed's KeyGenerator (Java), with Java's null-to-"null" concatenation
const SEPARATOR = '#';
const jstr = (s) => (s === null || s === undefined ? 'null' : String(s));
function createHashKey(itemName, ...hashKeys) {
  let b = itemName;
  for (const k of hashKeys) b += SEPARATOR + jstr(k);
  return b;
}
function createRangeKey(...rangeKeys) {
  return rangeKeys.map(jstr).join(SEPARATOR);
}

// ---- DynamoDBMapper conversions
const S = (v) => (v === null || v === undefined ? undefined : { S: v });
const N = (v) => (v === null || v === undefined ? undefined : { N: BigInt(v).toString() });
function item(pairs) {
  const o = {};
  for (const [k, v] of pairs) if (v !== undefined) o[k] = v;
  return JSON.stringify({ Item: o });
}

// FavoriteDataType: name() is stored, getValue() goes into keys
const FavoriteDataType = {
  IMAGE: 'image',
  LINK: 'link',
  FILE: 'file',
  POSITION: 'position',
};

function tagDto(t) {
  return item([
    ['pk', S(createHashKey('Tag', t.userId))],
    ['sk', S(createRangeKey(t.tagId))],
    ['tagName', S(t.tagName)],
    ['createTime', N(t.createTime)],
    ['lastAccessTime', N(t.lastAccessTime)],
    ['lsiOneSk', S(createRangeKey(t.tagName))],
    ['lsiTwoSk', S(createRangeKey(String(t.createTime)))],
    ['lsiThreeSk', S(createRangeKey(String(t.lastAccessTime)))],
  ]);
}

function favoriteDataDto(d) {
  return item([
    ['pk', S(createHashKey('FavoriteData', d.userId))],
    ['sk', S(createRangeKey(d.dataId))],
    ['creatorId', S(d.creatorId)],
    ['title', S(d.title)],
    ['thumbnailUrl', S(d.thumbnailUrl)],
    ['contentUrl', S(d.contentUrl)],
    ['dataType', S(d.dataType)],
    ['clipTime', S(d.clipTime)],
    ['gsiOnePk', S(createHashKey('FavoriteData', d.userId, FavoriteDataType[d.dataType]))],
    ['gsiOneSk', S(createRangeKey(d.clipTime, d.dataId))],
  ]);
}

function favoriteDataTagDto(x) {
  return item([
    ['pk', S(createHashKey('FavoriteDataTag', x.userId, x.dataId))],
    ['sk', S(createRangeKey(x.tagId))],
    ['clipTime', S(x.clipTime)],
    ['dataType', S(x.dataType)],
    ['gsiOnePk', S(createHashKey('FavoriteDataTag', x.userId, x.tagId))],
    ['gsiOneSk', S(createRangeKey(x.clipTime, x.dataId))],
    ['gsiTwoPk', S(createHashKey('FavoriteDataTag', x.userId, x.tagId, FavoriteDataType[x.dataType]))],
    ['gsiTwoSk', S(createRangeKey(x.clipTime, x.dataId))],
  ]);
}

const tagNames = ['工作', '旅行 ✈️', 'Reading list', 'Recipes, quick', '"Important"', 'café',
  'To read\nlater', '#hashtag', 'a/b/c', '2024', '  padded  ', 'Ünïcödé 🦄'];
const titles = ['Weekend in Hangzhou 杭州西湖', 'Line one\r\nLine two', 'Q3 report, final.pdf',
  '{"json": "looking"}', 'Tab\tseparated', '', null, 'Zero-width joiner: 👩‍💻'];

function favorites() {
  const out = [];
  let u = 0;
  while (out.length < count) {
    const userId = pick(['wxid_', 'o', 'user-']) + (1000 + u++);
    const tags = [];
    for (let i = 0, n = 1 + rnd(3); i < n; i++) {
      const createTime = 1546300800000 + rnd(170000000000);
      const t = {
        userId,
        tagId: 't' + rnd(100000),
        tagName: pick(tagNames),
        createTime,
        lastAccessTime: rnd(5) === 0 ? 0 : createTime + rnd(1000000000),
      };
      if (tags.some((x) => x.tagId === t.tagId)) continue;
      tags.push(t);
      out.push(tagDto(t));
    }
    for (let i = 0, n = 1 + rnd(4); i < n; i++) {
      const d = {
        userId,
        dataId: pick(['d', '000', '']) + rnd(10000000),
        creatorId: rnd(3) ? 'wxid_c' + rnd(1000) : null,
        title: pick(titles),
        thumbnailUrl: rnd(2) ? 'https://example.com/t/' + rnd(1000) + '.jpg' : null,
        contentUrl: rnd(2) ? 'https://example.com/c/' + rnd(1000) + '?a=1&b=2' : null,
        dataType: pick(Object.keys(FavoriteDataType)),
        clipTime: String(1546300800000 + rnd(170000000000)),
      };
      if (d.dataId === '') d.dataId = '0';
      out.push(favoriteDataDto(d));
      for (const t of tags) {
        if (rnd(2)) continue;
        out.push(favoriteDataTagDto({ userId, dataId: d.dataId, tagId: t.tagId,
          clipTime: d.clipTime, dataType: d.dataType }));
      }
    }
  }
  return out;
}

// ---- facility capacity: java.time names and ISO dates, as MomentConverter writes them
const DayOfWeek = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
function localDate(y, m, d) {
  const p = (n, w) => String(n).padStart(w, '0');
  return `${p(y, 4)}-${p(m, 2)}-${p(d, 2)}`;
}
function facilityCapacity(f) {
  return item([
    ['facilityId', S(f.facilityId)],
    ['moment', S(f.moment)],
    ['capacity', N(f.capacity)],
    ['description', S(f.description)],
  ]);
}
function facility() {
  const out = [];
  let i = 0;
  const days = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  while (out.length < count) {
    const facilityId = pick(['F', 'NL-AMS-', '']) + (100 + i++);
    for (const day of DayOfWeek)
      out.push(facilityCapacity({ facilityId, moment: day,
        capacity: day === 'SUNDAY' && rnd(2) ? 0 : 100 + rnd(5000),
        description: rnd(4) === 0 ? 'regular' : null }));
    for (let k = 0, n = rnd(4); k < n; k++) {
      const m = 1 + rnd(12);
      const y = m === 2 ? 2024 : 2020 + rnd(6);
      out.push(facilityCapacity({ facilityId, moment: localDate(y, m, 1 + rnd(days[m - 1])),
        capacity: rnd(5) === 0 ? null : rnd(3000),
        description: pick(['Christmas', 'Stocktaking, closed early', 'Koningsdag 🇳🇱', '', null]) }));
    }
  }
  return out;
}

// ---- movies, as seed 002 describes the design
function movies() {
  const out = [];
  const actors = [];
  let a = 0, mv = 0;
  while (out.length < count) {
    if (actors.length < 3 || rnd(3) === 0) {
      const actorId = 'nm' + String(1000 + a++).padStart(7, '0');
      actors.push(actorId);
      out.push(item([['pk', S('act#' + actorId)], ['sk', S('act#' + actorId)],
        ['name', S(pick(['Tom Hanks', 'Zhang Ziyi 章子怡', "Lupita Nyong'o", 'Mads Mikkelsen']))],
        ['birthDate', rnd(2) ? S(localDate(1950 + rnd(50), 1 + rnd(12), 1 + rnd(28))) : undefined]]));
      continue;
    }
    const movieId = 'tt' + String(100 + mv++).padStart(7, '0');
    out.push(item([['pk', S('mov#' + movieId)], ['sk', S('mov#' + movieId)],
      ['title', S(pick(['Cast Away', 'Hero 英雄', 'Us', 'Another Round', 'Toy Story']))],
      ['releaseYear', N(1990 + rnd(35))],
      ['genres', { SS: ['Drama', 'Comedy'].slice(0, 1 + rnd(2)) }]]));
    const cast = new Set();
    for (let k = 0, n = 1 + rnd(3); k < n; k++) cast.add(pick(actors));
    let billing = 1;
    for (const actorId of cast)
      out.push(item([['pk', S('mov#' + movieId)], ['sk', S('act#' + actorId)],
        ['character', S(pick(['Chuck Noland', 'Broken Sword', 'Adelaide "Red"', 'Martin']))],
        ['billing', N(billing++)]]));
    for (let k = 0, n = rnd(3); k < n; k++) {
      const month = localDate(2024, 1 + k, 1).slice(0, 7);
      const streams = rnd(3) === 0 ? 0 : rnd(100000000);
      out.push(item([['pk', S('mov#' + movieId)], ['sk', S('streams#' + month)],
        ['streams', N(streams)],
        ['gsi2pk', S('streams#' + month)],
        ['gsi2sk', S(String(streams).padStart(15, '0') + '#' + movieId)]]));
    }
    for (let k = 0, n = rnd(3); k < n; k++) {
      const at = localDate(2024, 1 + rnd(12), 1 + rnd(28)) + 'T' + String(rnd(24)).padStart(2, '0') + ':15:00Z';
      const streamId = 's' + rnd(1000000);
      out.push(item([['pk', S('mov#' + movieId)], ['sk', S('stream#' + at + '#' + streamId)],
        ['userId', S('u' + rnd(1000))], ['seconds', N(rnd(10000))]]));
    }
  }
  return out;
}

const writers = { favorites, facility, movies };
if (!writers[design]) {
  process.stderr.write('usage: seed-writers.js favorites|facility|movies [COUNT] [SEED]\n');
  process.exit(2);
}
process.stdout.write(writers[design]().join('\n') + '\n');
